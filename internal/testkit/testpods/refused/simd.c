// A pod that uses 128-bit SIMD (v128.load, f32x4.add) in its export vec_add,
// a feature the boards' interpreter does not run.
#include <wasm_simd128.h>
#include "k32test.h"
K32_EXPORT(vec_add) void vec_add(float *c, const float *a, const float *b, int n) {
	for (int i = 0; i + 4 <= n; i += 4) {
		wasm_v128_store(&c[i], wasm_f32x4_add(wasm_v128_load(&a[i]), wasm_v128_load(&b[i])));
	}
}
K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	float a[8], b[8], c[8];
	k32_random(a, sizeof a);
	k32_random(b, sizeof b);
	vec_add(c, a, b, 8);
	return c[5] > 0;
}
// As crt1-reactor.o does: with _initialize running the constructors, wasm-ld
// exports the functions themselves rather than wrappers that run them first
// (which wasm-opt would inline at -O1 and above), so the exports name them.
void __wasm_call_ctors(void);
K32_EXPORT(_initialize) void _initialize(void) { __wasm_call_ctors(); }
