/*
 * envpod: a request pod for the kubelet tests. It answers every request with
 * "NAME=value" lines: the environment variables the tests look at and the
 * request path, so a test sees which pod it reached and what it was given.
 * A path /env/A,B,... adds the lines of the variables A, B, ...
 */
#include "k32.h"

static char out[2048];
static uint32_t out_len;
static char value[256];
static char path[256];

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
    int32_t n = k32_req_path(path, sizeof path - 1);
    uint32_t len = n > 0 ? (uint32_t)n : 0;
    if (len > sizeof path - 1) {
        len = sizeof path - 1;
    }
    path[len] = 0;
    put_str("path=");
    put(path, len);
    put_str("\n");
    if (len > 5 && path[0] == '/' && path[1] == 'e' && path[2] == 'n' && path[3] == 'v' && path[4] == '/') {
        /* Each name ends at a comma or the end; cut there in place. */
        char* name = path + 5;
        for (char* p = name;; p++) {
            if (*p == ',' || *p == 0) {
                char end = *p;
                *p = 0;
                env_line(name);
                if (end == 0) {
                    break;
                }
                name = p + 1;
            }
        }
    }
    return k32_respond(200, "text/plain", out, out_len);
}
