// bigmem: a request pod the test links with two pages of initial memory.
#include "k32test.h"
K32_EXPORT(k32_handle) int32_t k32_handle(void) { return 0; }
