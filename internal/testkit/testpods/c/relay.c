/*
 * relay: the k32_http_call test pod. Its request body is a list of
 * commands, one a line, run in order:
 *
 *   spin MS                        busy-waits MS milliseconds (holding the pod)
 *   call METHOD URL TIMEOUT_MS CAP calls URL with the rest of the body as the
 *                                  call's body, then stops
 *
 * It answers with "who=<WHO>" and what it saw (the call chain, the path and
 * every request header), then for a call "call rc=.. status=.. len=..
 * x-relay=.." (the answer's X-Relay header, which names the pod that
 * answered) followed by the first CAP bytes of the answer. Every call sends
 * the same headers, of which only some may reach a pod behind a Service.
 */
#include "k32.h"

static char in[4096];
static uint32_t in_len;
static char out[12288];
static uint32_t out_len;
static uint8_t resp[4096];
static char value[2048];

static const char call_headers[] =
    "Cookie: c=1\r\nX-Request-Id: r1\r\nAuthorization: Bearer secret\r\n"
    "X-Secret: s\r\nContent-Type: text/plain\r\nX-Kube32-Pod: forged/pod\r\n";

static void put(const char* s, uint32_t n) {
    for (uint32_t i = 0; i < n && out_len < sizeof out; i++) {
        out[out_len++] = s[i];
    }
}

static void put_str(const char* s) { put(s, k32_strlen(s)); }

static void put_int(int64_t v) {
    char digits[24];
    int n = 0;
    if (v < 0) {
        put_str("-");
        v = -v;
    }
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (n > 0) {
        put(&digits[--n], 1);
    }
}

/* word returns the next space-separated word of line[*i..end). */
static uint32_t word(const char* line, uint32_t* i, uint32_t end, const char** start) {
    while (*i < end && line[*i] == ' ') {
        (*i)++;
    }
    *start = line + *i;
    uint32_t n = 0;
    while (*i < end && line[*i] != ' ') {
        (*i)++;
        n++;
    }
    return n;
}

static uint32_t number(const char* s, uint32_t n) {
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; i++) {
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    return v;
}

static int starts(const char* s, uint32_t n, const char* prefix) {
    uint32_t m = k32_strlen(prefix);
    if (n < m) {
        return 0;
    }
    for (uint32_t i = 0; i < m; i++) {
        if (s[i] != prefix[i]) {
            return 0;
        }
    }
    return 1;
}

static void header_line(const char* label, const char* name) {
    put_str(label);
    int32_t n = k32_req_header(name, k32_strlen(name), value, sizeof value);
    if (n > 0) {
        put(value, (uint32_t)n < sizeof value ? (uint32_t)n : sizeof value);
    }
    put_str("\n");
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    out_len = 0;
    in_len = 0;
    for (;;) {
        int32_t n = k32_req_read((uint8_t*)in + in_len, sizeof in - in_len);
        if (n <= 0) {
            break;
        }
        in_len += (uint32_t)n;
    }
    put_str("who=");
    if (k32_env("WHO", value, sizeof value) >= 0) {
        put_str(value);
    }
    put_str("\n");
    header_line("chain=", "X-Kube32-Call-Chain");
    put_str("path=");
    int32_t n = k32_req_path(value, sizeof value);
    if (n > 0) {
        put(value, (uint32_t)n < sizeof value ? (uint32_t)n : sizeof value);
    }
    put_str("\nheaders:\n");
    n = k32_req_headers(value, sizeof value);
    if (n > 0) {
        put(value, (uint32_t)n < sizeof value ? (uint32_t)n : sizeof value);
    }

    uint32_t pos = 0;
    while (pos < in_len) {
        uint32_t end = pos;
        while (end < in_len && in[end] != '\n') {
            end++;
        }
        const char* line = in + pos;
        uint32_t len = end - pos;
        uint32_t next = end < in_len ? end + 1 : end;
        if (starts(line, len, "spin ")) {
            int64_t until = k32_time_ms() + number(line + 5, len - 5);
            while (k32_time_ms() < until) {
            }
        } else if (starts(line, len, "call ")) {
            uint32_t i = 5;
            const char *method, *url, *timeout, *cap;
            uint32_t method_len = word(line, &i, len, &method);
            uint32_t url_len = word(line, &i, len, &url);
            uint32_t timeout_len = word(line, &i, len, &timeout);
            uint32_t cap_len = word(line, &i, len, &cap);
            uint32_t resp_cap = number(cap, cap_len);
            if (resp_cap > sizeof resp) {
                resp_cap = sizeof resp;
            }
            uint32_t resp_len = 0;
            int32_t rc = k32_http_call(method, method_len, url, url_len, call_headers,
                                       sizeof call_headers - 1, (const uint8_t*)in + next,
                                       in_len - next, resp, resp_cap, &resp_len,
                                       number(timeout, timeout_len));
            put_str("call rc=");
            put_int(rc);
            put_str(" status=");
            put_int(k32_http_status());
            put_str(" len=");
            put_int(resp_len);
            put_str(" x-relay=");
            int32_t h = k32_http_header(K32_STR("X-Relay"), value, sizeof value);
            if (h > 0) {
                put(value, (uint32_t)h < sizeof value ? (uint32_t)h : sizeof value);
            }
            put_str("\n");
            put((const char*)resp, resp_len);
            break;
        }
        pos = next;
    }
    int32_t who = k32_env("WHO", value, sizeof value);
    k32_resp_header(K32_STR("X-Relay"), value, who > 0 ? (uint32_t)who : 0);
    return k32_respond(200, "text/plain", out, out_len);
}
