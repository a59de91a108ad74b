// decimal.h: decimal writes v at s and returns how many characters it
// took, for the test pods that answer or log a count.
#include <stdint.h>

static uint32_t decimal(char *s, uint32_t v) {
	char t[12];
	uint32_t n = 0, i = 0;
	do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (n) s[i++] = t[--n];
	return i;
}
