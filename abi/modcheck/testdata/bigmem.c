// Valid, but built with --initial-memory=131072 (2 pages) by the test.
#include "k32test.h"
K32_EXPORT(k32_handle) int32_t k32_handle(void) { return 0; }
