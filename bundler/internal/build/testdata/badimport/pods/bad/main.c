#include <stdint.h>

__attribute__((import_module("k32"), import_name("k32_teleport")))
int32_t k32_teleport(int32_t where);

__attribute__((export_name("k32_handle"))) int32_t k32_handle(void) {
    return k32_teleport(42);
}
