// Imports from a module a node does not provide, and a WASI function outside the subset.
#include "k32test.h"
__attribute__((import_module("env"), import_name("host_thing"))) int32_t host_thing(void);
__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_raise"))) int32_t proc_raise(int32_t sig);
K32_EXPORT(k32_handle) int32_t k32_handle(void) { return host_thing() + proc_raise(1); }
