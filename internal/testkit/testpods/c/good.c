// A valid request pod: one k32 import, one WASI import, k32_handle.
#include <unistd.h>
#include "k32test.h"
K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	k32_log(1, "hi", 2);
	write(1, "out\n", 4);
	return 0;
}
