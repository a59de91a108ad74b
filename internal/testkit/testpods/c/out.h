// out.h: the text answer of the test pods that write one: put, puts_ and
// putint append to out (OUT_CAP bytes, 16384 unless the pod defines it
// first) and drop what does not fit; outlen is how much it holds.
#include <stdint.h>

#ifndef OUT_CAP
#define OUT_CAP 16384
#endif

static char out[OUT_CAP];
static uint32_t outlen;

static void put(const char *s, uint32_t n) {
	for (uint32_t i = 0; i < n && outlen < sizeof out; i++) out[outlen++] = s[i];
}
static void puts_(const char *s) { uint32_t n = 0; while (s[n]) n++; put(s, n); }
static void putint(int64_t v) {
	char t[24]; int n = 0;
	if (v < 0) { put("-", 1); v = -v; }
	do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (n) put(&t[--n], 1);
}
