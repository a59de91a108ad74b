// spin: a pod whose work the test sets, for the board time tests.
//   GET /?<n>  runs n rounds of work(), then answers the result as eight
//              hex digits (the same length whatever n is)
// work is exported too, and never inlined, so that a test can count it
// apart from the request's handling.
#include "k32.h"

K32_EXPORT(work) __attribute__((noinline)) uint32_t work(uint32_t n) {
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ i) * 16777619u;
	}
	return h;
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	char query[16];
	int32_t q = k32_req_query(query, sizeof query);
	uint32_t n = 0;
	for (int32_t i = 0; i < q && query[i] >= '0' && query[i] <= '9'; i++) n = n * 10 + (uint32_t)(query[i] - '0');
	uint32_t h = work(n);
	char out[8];
	for (int i = 7; i >= 0; i--, h >>= 4) out[i] = "0123456789abcdef"[h & 15];
	return k32_resp_write(out, sizeof out) < 0 ? 500 : 0;
}
