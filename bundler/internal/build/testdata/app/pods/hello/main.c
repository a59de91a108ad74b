#include "k32.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    return k32_respond(200, "text/plain", K32_STR("hello from c\n"));
}
