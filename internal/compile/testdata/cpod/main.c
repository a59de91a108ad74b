#include "k32.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    k32_resp_header(K32_STR("Content-Type"), K32_STR("text/plain"));
    k32_write_str("hello from c\n");
    return 0;
}
