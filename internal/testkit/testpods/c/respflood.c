/*
 * respflood: a request pod that asks its node to hold more than it should,
 * for the tests of slow clients and per-request limits (docs/serve.md,
 * "Hostile clients").
 *   /big?<bytes>             writes <bytes> of 'x' in 64 KiB writes, then
 *                            logs "big wrote=<n> err=<code>": the bytes the
 *                            node took and the first error (0 for none)
 *   /headers?<count>,<size>  queues <count> headers X-Flood-<i> of <size>
 *                            bytes each, then answers "accepted=<n>
 *                            refused=<m> err=<code>"
 *   /call?<hlen>,<blen>      calls k32_http_call with <hlen> bytes of
 *                            headers and a body of <blen> bytes, answers
 *                            "rc=<result>"
 *   /publish?<len>           publishes <len> bytes on topic "flood" with
 *                            k32_publish, answers "rc=<result>"
 *   /log?<len>               logs one line of <len> bytes with k32_log,
 *                            answers "rc=<result>"
 *   /stdout?<len>            writes <len> bytes without a newline to stdout
 *                            in one write, answers "rc=<bytes written>"
 *   anything else            answers "ok"
 * Its buffer is pages it grows (the first at the first request), so that
 * the module starts in one page. It includes only the C SDK, so that
 * bench/faults builds it as a project's pod.
 */
#include <unistd.h>
#include "k32.h"

#define CHUNK 65536

static char path[64];
static char query[64];
static char line[96];
static char *chunk;

// number reads the decimal at *p and moves *p past it and one separator.
static uint32_t number(const char **p, const char *end) {
	uint32_t v = 0;
	while (*p < end && **p >= '0' && **p <= '9') v = v * 10 + (uint32_t)(*(*p)++ - '0');
	if (*p < end) (*p)++;
	return v;
}

// put appends s and returns the new length.
static uint32_t put(char *out, uint32_t n, const char *s) {
	while (*s) out[n++] = *s++;
	return n;
}

// putint appends v in decimal (negative too) and returns the new length.
static uint32_t putint(char *out, uint32_t n, int64_t v) {
	if (v < 0) { out[n++] = '-'; v = -v; }
	char t[20];
	uint32_t d = 0;
	do { t[d++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (d) out[n++] = t[--d];
	return n;
}

static uint32_t chunk_pages;

// grow_chunk makes the buffer at chunk at least n bytes long, its bytes
// 'x'; pages grown one after the other are contiguous.
static int grow_chunk(uint32_t n) {
	while (chunk_pages * CHUNK < n) {
		unsigned long page = __builtin_wasm_memory_grow(0, 1);
		if (page == (unsigned long)-1) return 0;
		if (!chunk) chunk = (char *)(page * 65536);
		char *p = (char *)(page * 65536);
		for (uint32_t i = 0; i < CHUNK; i++) p[i] = 'x';
		chunk_pages++;
	}
	return 1;
}

static int32_t answer_rc(int32_t rc) {
	uint32_t o = putint(line, put(line, 0, "rc="), rc);
	line[o++] = '\n';
	k32_resp_write(line, o);
	return 0;
}

// call sends hlen bytes of headers ("X-A: xxx...\r\n") at the start of
// the buffer and the blen bytes after them as the body.
static int32_t call(const char *p, const char *end) {
	uint32_t hlen = number(&p, end), blen = number(&p, end);
	if (hlen < 7) hlen = 0;
	if (!grow_chunk(hlen + blen)) return k32_respond(507, "text/plain", K32_STR("no memory\n"));
	if (hlen) {
		chunk[0] = 'X'; chunk[1] = '-'; chunk[2] = 'A'; chunk[3] = ':'; chunk[4] = ' ';
		chunk[hlen - 2] = '\r'; chunk[hlen - 1] = '\n';
	}
	uint8_t resp[16];
	uint32_t resp_len = 0;
	int32_t rc = k32_http_call(K32_STR("POST"), K32_STR("http://flood/"), chunk, hlen,
	                           (const uint8_t *)chunk + hlen, blen, resp, sizeof resp, &resp_len, 0);
	if (hlen) { chunk[0] = chunk[1] = chunk[2] = chunk[3] = chunk[4] = 'x'; chunk[hlen - 2] = chunk[hlen - 1] = 'x'; }
	return answer_rc(rc);
}

static int32_t big(const char *p, const char *end) {
	uint32_t want = number(&p, end), wrote = 0;
	int32_t err = 0;
	while (wrote < want) {
		uint32_t n = want - wrote < CHUNK ? want - wrote : CHUNK;
		int32_t r = k32_resp_write(chunk, n);
		if (r < 0) {
			if (!err) err = r;
			if (r != K32_ERR_IO) break;
			wrote += n; // the node discards the rest: keep going as a careless pod would
			continue;
		}
		if (!err) wrote += (uint32_t)r;
		else wrote += n;
	}
	uint32_t o = put(line, 0, "big wrote=");
	o = putint(line, o, err ? 0 : wrote);
	o = put(line, o, " err=");
	o = putint(line, o, err);
	k32_log(K32_LOG_INFO, line, o);
	return 0;
}

static int32_t headers(const char *p, const char *end) {
	uint32_t count = number(&p, end), size = number(&p, end);
	if (size > CHUNK) size = CHUNK;
	uint32_t accepted = 0, refused = 0;
	int32_t err = 0;
	char name[24];
	for (uint32_t i = 0; i < count; i++) {
		uint32_t n = putint(name, put(name, 0, "X-Flood-"), i);
		int32_t r = k32_resp_header(name, n, chunk, size);
		if (r == 0) {
			accepted++;
		} else {
			refused++;
			if (!err) err = r;
		}
	}
	uint32_t o = put(line, 0, "accepted=");
	o = putint(line, o, accepted);
	o = put(line, o, " refused=");
	o = putint(line, o, refused);
	o = put(line, o, " err=");
	o = putint(line, o, err);
	line[o++] = '\n';
	k32_resp_write(line, o); // no Content-Type: the pod may have no header left
	return 0;
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	int32_t pn = k32_req_path(path, sizeof path);
	int32_t q = k32_req_query(query, sizeof query);
	if (pn < 0 || pn > (int32_t)sizeof path) pn = 0;
	if (q < 0 || q > (int32_t)sizeof query) q = 0;
	if (!grow_chunk(CHUNK)) return k32_respond(507, "text/plain", K32_STR("no page for the buffer\n"));
	const char *p = query, *end = query + q;
	if (k32_equals(path, sizeof path, pn, "/big")) return big(query, query + q);
	if (k32_equals(path, sizeof path, pn, "/call")) return call(query, query + q);
	if (k32_equals(path, sizeof path, pn, "/publish")) {
		uint32_t n = number(&p, end);
		if (!grow_chunk(n)) return k32_respond(507, "text/plain", K32_STR("no memory\n"));
		return answer_rc(k32_publish(K32_STR("flood"), chunk, n));
	}
	if (k32_equals(path, sizeof path, pn, "/stdout")) {
		uint32_t n = number(&p, end);
		if (!grow_chunk(n)) return k32_respond(507, "text/plain", K32_STR("no memory\n"));
		return answer_rc((int32_t)write(1, chunk, n));
	}
	if (k32_equals(path, sizeof path, pn, "/log")) {
		uint32_t n = number(&p, end);
		if (!grow_chunk(n)) return k32_respond(507, "text/plain", K32_STR("no memory\n"));
		return answer_rc(k32_log(K32_LOG_INFO, chunk, n));
	}
	if (k32_equals(path, sizeof path, pn, "/headers")) return headers(query, query + q);
	return k32_respond(200, "text/plain", K32_STR("ok\n"));
}
