// initfail: k32_init refuses to start.
#include "k32test.h"
K32_EXPORT(k32_init) int32_t k32_init(void) { k32_log(3, LIT("no config")); return 1; }
K32_EXPORT(k32_handle) int32_t k32_handle(void) { return 0; }
