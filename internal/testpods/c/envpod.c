/*
 * envpod: a request pod for the kubelet tests. It answers every request with
 * "NAME=value" lines: the environment variables the tests look at and the
 * request path, so a test sees which pod it reached and what it was given.
 */
#include "k32.h"

static char out[2048];
static uint32_t out_len;
static char value[256];

static void put(const char* s, uint32_t n) {
    for (uint32_t i = 0; i < n && out_len < sizeof out; i++) {
        out[out_len++] = s[i];
    }
}

static void put_str(const char* s) { put(s, k32_strlen(s)); }

static void env_line(const char* name) {
    put_str(name);
    put_str("=");
    if (k32_env(name, value, sizeof value) >= 0) {
        put_str(value);
    } else {
        put_str("<unset>");
    }
    put_str("\n");
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    out_len = 0;
    env_line("WHO");
    env_line("KUBERNETES_SERVICE_HOST");
    env_line("KUBERNETES_SERVICE_PORT");
    env_line("WEB_SERVICE_HOST");
    env_line("WEB_SERVICE_PORT");
    env_line("WEB_PORT");
    put_str("path=");
    int32_t n = k32_req_path(value, sizeof value);
    if (n > 0) {
        put(value, (uint32_t)n < sizeof value ? (uint32_t)n : sizeof value);
    }
    put_str("\n");
    return k32_respond(200, "text/plain", out, out_len);
}
