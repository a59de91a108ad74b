/*
 * bigmem: a request pod built with two pages (128Ki) of initial memory, for
 * the test of a module over its pod's one-page memory limit.
 */
#include "k32.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    return k32_respond(200, "text/plain", K32_STR("too big to get here\n"));
}
