// k32_log with a parameter missing, and k32_handle returning nothing.
#include <stdint.h>
__attribute__((import_module("k32"), import_name("k32_log"))) int32_t k32_log_short(const char *msg, uint32_t len);
__attribute__((export_name("k32_handle"))) void k32_handle(void) { k32_log_short("x", 1); }
