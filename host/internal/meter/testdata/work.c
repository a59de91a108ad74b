// A pod's worth of CPU work for the meter's tests: n rounds of FNV-1a over
// the round's number, and the same in doubles.
#include <stdint.h>

__attribute__((export_name("work"))) uint32_t work(uint32_t n) {
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ i) * 16777619u;
	}
	return h;
}

__attribute__((export_name("fwork"))) double fwork(uint32_t n) {
	double x = 1.0;
	for (uint32_t i = 0; i < n; i++) {
		x = x * 1.0000001 + 1.0 / (double)(i + 1);
	}
	return x;
}
