// fib(n), the recursive Fibonacci that wasm3's published ESP32 figure
// times (docs/boards.md, "Time on the board"): the same function as
// wasm3's fib32 module, built with the project's C flags.
#include <stdint.h>

__attribute__((export_name("fib"))) uint32_t fib(uint32_t n) {
	if (n < 2) {
		return n;
	}
	return fib(n - 1) + fib(n - 2);
}
