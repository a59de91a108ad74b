// A pod that uses atomics (i32.atomic.rmw.add) in its export count_hit on a
// shared, exported memory: threads, which the boards' interpreter does not
// run.
#include <stdatomic.h>
#include "k32test.h"
static _Atomic int hits;
K32_EXPORT(count_hit) int count_hit(void) {
	return atomic_fetch_add(&hits, 1);
}
K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	count_hit();
	return 0;
}
// As crt1-reactor.o does: with _initialize running the constructors, wasm-ld
// exports the functions themselves rather than wrappers that run them first
// (which wasm-opt would inline at -O1 and above), so the exports name them.
void __wasm_call_ctors(void);
K32_EXPORT(_initialize) void _initialize(void) { __wasm_call_ctors(); }
