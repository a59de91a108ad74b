// Exports no entry point at all.
#include "k32test.h"
K32_EXPORT(helper) int32_t helper(void) { return k32_log(1, "x", 1); }
