/*
 * whoami: the backend pod of the ingress end-to-end tests (e2e_test.go).
 *
 * Every request is answered with JSON naming the pod (its POD_NAME variable,
 * set per pod in the manifests, so many pods share this one module) and the
 * method and path it received, which makes the backend the ingress chose
 * visible to the test.
 *
 * Paths under /assets/ are served from the pod image's bundle with
 * k32_resp_asset, after queueing an X-Whoami header that must go along. When
 * the file does not exist (K32_ERR_NOENT) the pod answers 404 with a fallback
 * body, and the header queued before the call must still be sent.
 *
 * It fits in one 64 KiB page: static buffers, no malloc.
 */
#include "k32.h"

static char out[4096];
static uint32_t out_len;

static void put(const char* s, uint32_t n) {
    for (uint32_t i = 0; i < n && out_len < sizeof out; i++) {
        out[out_len++] = s[i];
    }
}

static void put_str(const char* s) { put(s, k32_strlen(s)); }

/* put_json_string writes s as a JSON string, escaping what JSON requires. */
static void put_json_string(const char* s, uint32_t n) {
    static const char hex[] = "0123456789abcdef";
    put_str("\"");
    for (uint32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            put(esc, 2);
        } else if (c < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            put(esc, 6);
        } else {
            put((const char*)&s[i], 1);
        }
    }
    put_str("\"");
}

/* clamp turns a getter's result into the number of bytes it copied. */
static uint32_t clamp(int32_t n, uint32_t cap) {
    if (n < 0) {
        return 0;
    }
    return (uint32_t)n < cap ? (uint32_t)n : cap;
}

static int has_prefix(const char* s, uint32_t n, const char* prefix) {
    uint32_t p = k32_strlen(prefix);
    if (n < p) {
        return 0;
    }
    for (uint32_t i = 0; i < p; i++) {
        if (s[i] != prefix[i]) {
            return 0;
        }
    }
    return 1;
}

static char name[64], method[16], path[1024];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    uint32_t name_len = clamp(k32_env_get(K32_STR("POD_NAME"), name, sizeof name), sizeof name);
    uint32_t method_len = clamp(k32_req_method(method, sizeof method), sizeof method);
    uint32_t path_len = clamp(k32_req_path(path, sizeof path), sizeof path);

    if (has_prefix(path, path_len, "/assets/")) {
        /* Queued before the asset call: k32_resp_asset sends it along, and
         * keeps it for the fallback below on K32_ERR_NOENT. */
        k32_resp_header(K32_STR("X-Whoami"), name, name_len);
        uint32_t skip = k32_strlen("/assets/");
        int32_t r = k32_resp_asset(path + skip, path_len - skip, 0);
        if (r != K32_ERR_NOENT) {
            return r;
        }
        out_len = 0;
        put_str("fallback from ");
        put(name, name_len);
        put_str(" for ");
        put(path, path_len);
        put_str("\n");
        return k32_respond(404, "text/plain; charset=utf-8", out, out_len);
    }

    out_len = 0;
    put_str("{\"pod\":");
    put_json_string(name, name_len);
    put_str(",\"method\":");
    put_json_string(method, method_len);
    put_str(",\"path\":");
    put_json_string(path, path_len);
    put_str("}\n");
    return k32_respond(200, "application/json", out, out_len);
}
