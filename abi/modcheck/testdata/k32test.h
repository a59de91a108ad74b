// Test-only declarations of k32_app_abi imports (the real header lives in sdk/c).
#include <stdint.h>
#define K32_IMPORT(name) __attribute__((import_module("k32"), import_name(#name)))
#define K32_EXPORT(name) __attribute__((export_name(#name)))
K32_IMPORT(k32_log) int32_t k32_log(int32_t level, const char *msg, uint32_t len);
