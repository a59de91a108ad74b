/*
 * k32.h: small helpers for kube32 pods written in C, on top of the generated
 * k32_app_abi.h. Header-only and freestanding: no malloc, no libc calls, so a
 * pod that uses only these helpers imports nothing but module "k32".
 *
 *   #include "k32.h"
 *
 *   K32_EXPORT(k32_handle) int32_t k32_handle(void) {
 *       char name[32];
 *       if (k32_env("NAME", name, sizeof name) < 0) {
 *           return k32_respond(500, "text/plain", K32_STR("NAME not set\n"));
 *       }
 *       k32_resp_header(K32_STR("Content-Type"), K32_STR("text/plain"));
 *       k32_write_str("hello, ");
 *       k32_write_str(name);
 *       return 0;
 *   }
 */
#ifndef K32_H
#define K32_H

#include <stdint.h>

#include "k32_app_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * K32_STR expands a string literal to the pointer and length arguments the
 * ABI takes (the length without the terminating NUL):
 * k32_resp_write(K32_STR("ok\n")). Only for literals and char arrays whose
 * size is the string's: sizeof of a pointer is not a length.
 */
#define K32_STR(s) (s), (uint32_t)(sizeof(s) - 1)

/* k32_strlen is strlen without libc. */
static inline uint32_t k32_strlen(const char* s) {
    uint32_t n = 0;
    while (s[n] != '\0') {
        n++;
    }
    return n;
}

/* k32_log_str logs a NUL-terminated line at level (K32_LOG_*). */
static inline int32_t k32_log_str(int32_t level, const char* msg) {
    return k32_log(level, msg, k32_strlen(msg));
}

/* k32_write_str writes a NUL-terminated string to the response body. */
static inline int32_t k32_write_str(const char* s) {
    return k32_resp_write(s, k32_strlen(s));
}

/*
 * k32_respond sends a whole response: status, a Content-Type header unless
 * content_type is NULL, and body. It returns 0, or the first K32_ERR_* code,
 * so a k32_handle can end with "return k32_respond(...);".
 */
static inline int32_t k32_respond(uint32_t status, const char* content_type,
                                  const void* body, uint32_t len) {
    int32_t r = k32_resp_status(status);
    if (r < 0) {
        return r;
    }
    if (content_type != 0) {
        r = k32_resp_header(K32_STR("Content-Type"), content_type,
                            k32_strlen(content_type));
        if (r < 0) {
            return r;
        }
    }
    r = k32_resp_write(body, len);
    return r < 0 ? r : 0;
}

/*
 * k32_terminate_ NUL-terminates out after a getter that was given cap - 1
 * bytes of room and returned n (the full length or a K32_ERR_* code).
 */
static inline int32_t k32_terminate_(int32_t n, char* out, uint32_t cap) {
    if (cap == 0) {
        return n;
    }
    if (n < 0) {
        out[0] = '\0';
    } else {
        out[(uint32_t)n < cap ? (uint32_t)n : cap - 1] = '\0';
    }
    return n;
}

/*
 * k32_env reads the environment variable key into out as a NUL-terminated
 * string. It returns the value's full length, so a result >= cap means the
 * value was cut to cap - 1 bytes, or K32_ERR_NOENT when key is not set (out
 * is then "").
 */
static inline int32_t k32_env(const char* key, char* out, uint32_t cap) {
    int32_t n = k32_env_get(key, k32_strlen(key), out, cap ? cap - 1 : 0);
    return k32_terminate_(n, out, cap);
}

/*
 * k32_header reads the request header name into out as a NUL-terminated
 * string, with the results of k32_env.
 */
static inline int32_t k32_header(const char* name, char* out, uint32_t cap) {
    int32_t n = k32_req_header(name, k32_strlen(name), out, cap ? cap - 1 : 0);
    return k32_terminate_(n, out, cap);
}

/*
 * k32_req_path_cstr reads the request path (its escaped form, without the
 * query) into out as a NUL-terminated string and returns its length:
 *
 *   char path[64];
 *   if (k32_req_path_cstr(path, sizeof path) < 0) {
 *       return 414;
 *   }
 *
 * Unlike k32_env it never cuts: a path that does not fit in cap - 1 bytes
 * returns K32_ERR_TOOBIG, since a cut path could match a route it is not
 * on. On any error (K32_ERR_INVAL outside k32_handle too) out is "".
 */
static inline int32_t k32_req_path_cstr(char* out, uint32_t cap) {
    if (cap == 0) {
        return K32_ERR_TOOBIG;
    }
    int32_t n = k32_req_path(out, cap - 1);
    if (n >= 0 && (uint32_t)n >= cap) {
        n = K32_ERR_TOOBIG;
    }
    if (n < 0) {
        out[0] = '\0';
        return n;
    }
    out[n] = '\0';
    return n;
}

/*
 * k32_equals reports whether a getter's result is exactly the NUL-terminated
 * string s, given the buffer buf of cap bytes that the getter filled and its
 * result n (the full length, or a K32_ERR_* code):
 *
 *   char path[64];
 *   int32_t n = k32_req_path(path, sizeof path);
 *   if (k32_equals(path, sizeof path, n, "/health")) { ... }
 *
 * A value longer than cap never equals: its end was not copied, so give the
 * getter a buffer at least as long as any s it is compared with.
 */
static inline int k32_equals(const char* buf, uint32_t cap, int32_t n,
                             const char* s) {
    if (n < 0 || (uint32_t)n > cap || (uint32_t)n != k32_strlen(s)) {
        return 0;
    }
    for (int32_t i = 0; i < n; i++) {
        if (buf[i] != s[i]) {
            return 0;
        }
    }
    return 1;
}

#ifdef __cplusplus
}
#endif

#endif /* K32_H */
