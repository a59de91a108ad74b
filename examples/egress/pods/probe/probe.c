/*
 * probe: the pod of examples/egress/egress.yaml. It calls the URL its
 * request body holds with k32_http_call (GET, 5 s) and answers
 * "rc=<result>\n" followed by the first KiB of the answer's body: an HTTP
 * status, or a K32_ERR_* code such as -1 (K32_ERR_PERM) when a
 * NetworkPolicy refuses the connection. It fits in one 64 KiB page.
 */
#include "k32.h"

static char url[1024];
static uint8_t resp[1024];
static char out[1200];
static uint32_t out_len;

static void put(const char* s, uint32_t n) {
    for (uint32_t i = 0; i < n && out_len < sizeof out; i++) {
        out[out_len++] = s[i];
    }
}

static void put_int(int32_t v) {
    char digits[12];
    int n = 0;
    uint32_t u = v < 0 ? (uint32_t)(-(int64_t)v) : (uint32_t)v;
    if (v < 0) {
        put("-", 1);
    }
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    while (n > 0) {
        put(&digits[--n], 1);
    }
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    uint32_t url_len = 0;
    for (;;) {
        int32_t n = k32_req_read((uint8_t*)url + url_len, sizeof url - url_len);
        if (n <= 0) {
            break;
        }
        url_len += (uint32_t)n;
    }
    while (url_len > 0 && (url[url_len - 1] == '\n' || url[url_len - 1] == '\r' || url[url_len - 1] == ' ')) {
        url_len--;
    }
    uint32_t resp_len = 0;
    int32_t rc = k32_http_call(K32_STR("GET"), url, url_len, 0, 0, 0, 0, resp, sizeof resp, &resp_len, 5000);
    out_len = 0;
    put("rc=", 3);
    put_int(rc);
    put("\n", 1);
    put((const char*)resp, resp_len);
    return k32_respond(200, "text/plain", out, out_len);
}
