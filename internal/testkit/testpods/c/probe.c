// probe: one request pod whose routes exercise the host, for the tests.
// Each route writes what the host answered as "name=value" lines.
#include <unistd.h>
#include "k32test.h"
#include "../../../../sdk/c/k32_app_abi.h" // the K32_ERR_* codes
#include "out.h"

static char buf[4096];

// field writes name=<value got by a getter> or name=<error code>.
static void field(const char *name, int32_t n, const char *val) {
	puts_(name); put("=", 1);
	if (n < 0) putint(n); else put(val, n < (int32_t)sizeof buf ? (uint32_t)n : sizeof buf);
	put("\n", 1);
}
static void code(const char *name, int64_t v) { puts_(name); put("=", 1); putint(v); put("\n", 1); }
static int32_t flush(void) { k32_resp_write(out, outlen); return 0; }
static int eq(const char *a, int32_t n, const char *lit) {
	int32_t i = 0;
	for (; lit[i]; i++) if (i >= n || a[i] != lit[i]) return 0;
	return i == n;
}

static int32_t echo(void) {
	int32_t n;
	n = k32_req_method(buf, sizeof buf); field("method", n, buf);
	n = k32_req_path(buf, sizeof buf); field("path", n, buf);
	n = k32_req_query(buf, sizeof buf); field("query", n, buf);
	n = k32_req_header(LIT("x-test"), buf, sizeof buf); field("x-test", n, buf);
	n = k32_req_header(LIT("X-Missing"), buf, sizeof buf); field("x-missing", n, buf);
	code("method-cap1", k32_req_method(buf, 1));
	uint32_t total = 0;
	while ((n = k32_req_read((uint8_t *)buf + total, sizeof buf - total)) > 0) total += n;
	field("body", n < 0 ? n : (int32_t)total, buf);
	n = k32_env_get(LIT("GREETING"), buf, sizeof buf); field("env", n, buf);
	n = k32_env_get(LIT("NOPE"), buf, sizeof buf); field("env-missing", n, buf);
	k32_resp_header(LIT("Content-Type"), LIT("text/plain"));
	return flush();
}

static int32_t fault(void) {
	code("req_path", k32_req_path((char *)0xFFFFFFF0u, 100));
	code("log", k32_log(1, (const char *)0xFFFFFF00u, 0x1000));
	code("env_key", k32_env_get((const char *)0xFFFFFFFFu, 2, buf, sizeof buf));
	code("random", k32_random((void *)0x7FFFFFF0u, 64));
	code("resp_write", k32_resp_write((const void *)0xFFFFFFF0u, 64));
	code("resp_header", k32_resp_header(LIT("X-A"), (const char *)0xFFFFFFF0u, 64));
	return flush();
}

static int32_t asset(void) {
	int32_t q = k32_req_query(buf, sizeof buf);
	k32_resp_header(LIT("X-Queued"), LIT("kept"));
	int32_t r = k32_resp_asset(buf, (uint32_t)q, 0);
	if (r == 0) return 0;
	k32_resp_status(404);
	code("asset", r);
	return flush();
}

static int32_t call(void) {
	uint8_t resp[64];
	uint32_t resp_len = 0;
	int32_t r = k32_http_call(LIT("GET"), LIT("http://backend/ping"), LIT("X-From: probe\r\n"), (const uint8_t *)"", 0,
		resp, sizeof resp, &resp_len, 0);
	code("call", r);
	code("status", k32_http_status());
	int32_t n = k32_http_header(LIT("X-Reply"), buf, sizeof buf); field("x-reply", n, buf);
	field("body", r < 0 && r != K32_ERR_TOOBIG ? r : (int32_t)resp_len, (const char *)resp);
	return flush();
}

static int32_t outside(void) {
	code("event_topic", k32_event_topic(buf, sizeof buf));
	code("event_data", k32_event_data((uint8_t *)buf, sizeof buf));
	code("status_700", k32_resp_status(700));
	code("status_99", k32_resp_status(99));
	code("header_bad_name", k32_resp_header(LIT("Bad Name"), LIT("x")));
	code("header_crlf", k32_resp_header(LIT("X-A"), LIT("a\r\nX-Evil: 1")));
	code("header_ok", k32_resp_header(LIT("X-Ok"), LIT("yes")));
	code("status_201", k32_resp_status(201));
	code("http_status", k32_http_status());
	code("http_header", k32_http_header(LIT("X"), buf, sizeof buf));
	code("log_level_9", k32_log(9, LIT("x")));
	code("sleep", k32_sleep_ms(5));
	code("time_positive", k32_time_ms() > 1600000000000LL);
	code("random", k32_random(buf, 16));
	flush(); // sends the head
	outlen = 0;
	code("status_after_head", k32_resp_status(200));
	code("header_after_head", k32_resp_header(LIT("X-Late"), LIT("1")));
	code("asset_after_head", k32_resp_asset(LIT("index.html"), 0));
	return flush();
}

// headers: all the request's header lines, their full length, what a
// small buffer gets of them, and one header with repeated values.
static int32_t headers(void) {
	int32_t n = k32_req_headers(buf, sizeof buf);
	field("headers", n, buf);
	code("headers_len", n);
	char small[16];
	for (int i = 0; i < 16; i++) small[i] = '#';
	code("headers_cap8", k32_req_headers(small, 8));
	puts_("headers_small="); put(small, 16); put("\n", 1);
	n = k32_req_header(LIT("x-multi"), buf, sizeof buf); field("x-multi", n, buf);
	for (int i = 0; i < 16; i++) small[i] = '#';
	code("x-multi_cap5", k32_req_header(LIT("X-MULTI"), small, 5));
	puts_("x-multi_small="); put(small, 16); put("\n", 1);
	return flush();
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	char path[256];
	int32_t n = k32_req_path(path, sizeof path);
	outlen = 0;
	if (eq(path, n, "/echo")) return echo();
	if (eq(path, n, "/headers")) return headers();
	if (eq(path, n, "/resp-headers")) {
		k32_resp_header(LIT("x-rep"), LIT("1"));
		k32_resp_header(LIT("X-Lower"), LIT("a"));
		k32_resp_header(LIT("X-REP"), LIT("2"));
		k32_resp_write(LIT("queued\n"));
		return 0;
	}
	if (eq(path, n, "/hello")) { k32_resp_write(LIT("hello\n")); return 0; }
	if (eq(path, n, "/trap")) __builtin_trap();
	if (eq(path, n, "/loop")) { volatile uint32_t i = 0; for (;;) i++; }
	if (eq(path, n, "/sleep-long")) { code("sleep", k32_sleep_ms(600000)); return flush(); }
	if (eq(path, n, "/fault")) return fault();
	if (eq(path, n, "/grow")) {
		code("grow", (int32_t)__builtin_wasm_memory_grow(0, 1));
		code("pages", __builtin_wasm_memory_size(0));
		return flush();
	}
	if (eq(path, n, "/asset")) return asset();
	if (eq(path, n, "/call")) return call();
	if (eq(path, n, "/publish")) { code("publish", k32_publish(LIT("t"), LIT("x"))); return flush(); }
	if (eq(path, n, "/outside")) return outside();
	if (eq(path, n, "/teapot")) { k32_resp_header(LIT("X-Queued"), LIT("yes")); return 418; }
	if (eq(path, n, "/neg")) return K32_ERR_INVAL;
	if (eq(path, n, "/log")) {
		k32_log(2, LIT("hello from k32_log\n"));
		write(1, "to stdout\npartial", 17);
		write(1, " line\n", 6);
		write(2, "to stderr\n", 10);
		return 0;
	}
	k32_resp_status(404);
	put(path, n > 0 ? (uint32_t)n : 0);
	puts_(": no such route\n");
	return flush();
}

// k32_event echoes its message into the log.
K32_EXPORT(k32_event) int32_t k32_event(void) {
	char topic[64];
	int32_t t = k32_event_topic(topic, sizeof topic);
	int32_t d = k32_event_data((uint8_t *)buf, sizeof buf);
	outlen = 0;
	field("topic", t, topic);
	field("data", d, buf);
	code("req_path", k32_req_path(topic, sizeof topic));
	k32_log(1, out, outlen);
	return d;
}
