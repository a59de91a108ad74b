#include "k32.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    k32_write_str("thumb\n");
    return 0;
}
