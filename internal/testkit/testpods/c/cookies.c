// cookies: the pod of the web view's session cookie tests (docs/ui.md,
// "The token"). A path ending in
//   /set   tries to set the reserved cookies and one of its own, and
//          writes "set <which>=<rc>" for each;
//   /call  calls the URL in its body with a Cookie header holding the
//          reserved cookies and its own, and writes "call rc=<rc>" and the
//          answer;
// and any other path writes "cookie=<its Cookie header, or the error
// code when it has none>".
#include "k32test.h"
#define OUT_CAP 8192
#include "out.h"

static char buf[2048];
static uint8_t resp[2048];

static int ends(const char *s, int32_t n, const char *lit) {
	int32_t m = 0;
	while (lit[m]) m++;
	if (n < m) return 0;
	for (int32_t i = 0; i < m; i++) if (s[n - m + i] != lit[i]) return 0;
	return 1;
}
static void setc(const char *which, const char *value) {
	uint32_t n = 0;
	while (value[n]) n++;
	puts_("set "); puts_(which); puts_("=");
	putint(k32_resp_header(LIT("Set-Cookie"), value, n));
	puts_("\n");
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	char path[256];
	int32_t n = k32_req_path(path, sizeof path);
	outlen = 0;
	k32_resp_header(LIT("Content-Type"), LIT("text/plain"));
	if (n > 0 && ends(path, n, "/set")) {
		setc("session", "__Host-kube32-token=from-pod; Path=/; Secure; HttpOnly; SameSite=Strict");
		setc("old", "kube32-token=from-pod; Path=/");
		setc("nameless", "=__Host-kube32-token=from-pod; Path=/; Secure");
		setc("own", "pod-cookie=1; Path=/");
	} else if (n > 0 && ends(path, n, "/call")) {
		int32_t len = 0, m;
		while ((m = k32_req_read((uint8_t *)buf + len, sizeof buf - 1 - len)) > 0) len += m;
		uint32_t got = 0;
		int32_t rc = k32_http_call(LIT("GET"), buf, (uint32_t)len,
			LIT("Cookie: __Host-kube32-token=from-caller; kube32-token=from-caller; caller=1\r\n"),
			0, 0, resp, sizeof resp, &got, 5000);
		puts_("call rc="); putint(rc); puts_("\n");
		if (rc >= 0) put((const char *)resp, got < sizeof resp ? got : sizeof resp);
	} else {
		n = k32_req_header(LIT("Cookie"), buf, sizeof buf);
		puts_("cookie=");
		if (n < 0) putint(n); else put(buf, n < (int32_t)sizeof buf ? (uint32_t)n : sizeof buf);
		puts_("\n");
	}
	k32_resp_write(out, outlen);
	return 0;
}
