/*
 * A pod for headers_test.go. k32_handle exercises the helpers of k32.h
 * against the test's recording host; calls.c, which the test writes from the
 * ABI table, adds a k32_main that calls every host function.
 *
 * The test builds it with kube32 build's C flags (internal/compile's
 * BaseCFlags: clang --target=wasm32-wasi -O2 -nostartfiles -Wl,--no-entry
 * -Wl,-z,stack-size=8192 -Wl,--stack-first), plus
 * -Wl,--initial-memory=65536 -Wall -Wextra -Werror -I sdk/c.
 */
#include "k32.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    /* The host's GREETING is longer than the buffer: k32_env cuts it and
       still NUL-terminates. */
    char greeting[8];
    int32_t n = k32_env("GREETING", greeting, sizeof greeting);
    if (n < 0) {
        return n;
    }
    k32_log_str(K32_LOG_INFO, greeting);

    char missing[4] = "xyz";
    if (k32_header("X-Missing", missing, sizeof missing) != K32_ERR_NOENT ||
        missing[0] != '\0') {
        return k32_respond(500, 0, K32_STR("k32_header"));
    }

    /* Both of the test's paths are longer than 3 bytes: refused, not cut. */
    char tiny[4] = "xyz";
    if (k32_req_path_cstr(tiny, sizeof tiny) != K32_ERR_TOOBIG ||
        tiny[0] != '\0') {
        return k32_respond(500, 0, K32_STR("k32_req_path_cstr"));
    }

    char path[16];
    n = k32_req_path(path, sizeof path);
    if (!k32_equals(path, sizeof path, n, "/hello")) {
        return k32_respond(404, "text/plain", K32_STR("not found"));
    }
    return k32_respond(201, "text/plain", K32_STR("hi"));
}
