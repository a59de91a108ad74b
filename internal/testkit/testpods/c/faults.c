/*
 * faults: a request pod that fails as badly as C can, for the tests of what
 * a node does after a trap, a stack overflow or an out-of-memory.
 *   /check    answers "static=intact sum=<n>" when its static data is intact
 *             and "static=overwritten" when it is not
 *   /deep     calls down five 704-byte frames and traps in the deepest
 *   /overflow goes 9 KiB deep into its 8 KiB stack, then answers as /check:
 *             linked with the stack first it traps instead
 *   /recurse  recurses without end, until the stack overflows
 *   /grow     grows memory a page at a time, using each, until memory.grow fails, then
 *             answers 507 with "pages=<n> grow=-1"
 *   /bomb     the same, but traps when memory.grow fails, as a C program
 *             that aborts when malloc returns NULL
 */
#include "k32.h"

#define TABLE 256
static char marker[] = "intact";
static uint32_t table[TABLE] = {1}; // in data, after the stack with --stack-first
static int table_ready;

static int32_t check(void) {
	if (!table_ready) { // static data filled once per instance, checked on every request
		for (int i = 1; i < TABLE; i++) table[i] = table[i - 1] * 3 + 1;
		table_ready = 1;
	}
	uint32_t sum = 0, want = 1;
	int intact = marker[0] == 'i' && marker[5] == 't' && marker[6] == 0;
	for (int i = 0; i < TABLE; i++) {
		intact &= table[i] == want;
		sum += table[i];
		want = want * 3 + 1;
	}
	if (!intact) return k32_respond(500, "text/plain", K32_STR("static=overwritten\n"));
	char out[48] = "static=intact sum=";
	int n = 18;
	char digits[12];
	int d = 0;
	do { digits[d++] = (char)('0' + sum % 10); sum /= 10; } while (sum);
	while (d) out[n++] = digits[--d];
	out[n++] = '\n';
	return k32_respond(200, "text/plain", out, (uint32_t)n);
}

// deep traps at depth 0, each frame holding 704 bytes the optimiser keeps.
static __attribute__((noinline)) int deep(int depth) {
	volatile char frame[704];
	frame[0] = (char)depth;
	if (depth == 0) __builtin_trap();
	return deep(depth - 1) + frame[0];
}

static __attribute__((noinline)) int recurse(int n) {
	volatile char frame[256];
	frame[0] = (char)n;
	return recurse(n + 1) + frame[0];
}

// overflow fills each of its frames, so a stack that runs into the static
// data overwrites it.
static __attribute__((noinline)) int32_t overflow(int n) {
	volatile char frame[256];
	for (int i = 0; i < (int)sizeof frame; i++) frame[i] = (char)n;
	if (n == 0) return check();
	return overflow(n - 1) + frame[7];
}

static int32_t grow(int trap) {
	int32_t pages = (int32_t)__builtin_wasm_memory_size(0);
	while (__builtin_wasm_memory_grow(0, 1) != (unsigned long)-1) {
		// Use the page, as a real allocation would: untouched pages cost no RAM.
		volatile char *page = (volatile char *)((uintptr_t)pages * 65536);
		for (int i = 0; i < 65536; i += 4096) page[i] = 1;
		pages++;
	}
	if (trap) __builtin_trap();
	char out[40] = "pages=";
	int n = 6;
	char digits[12];
	int d = 0;
	do { digits[d++] = (char)('0' + pages % 10); pages /= 10; } while (pages);
	while (d) out[n++] = digits[--d];
	const char *tail = " grow=-1\n";
	while (*tail) out[n++] = *tail++;
	return k32_respond(507, "text/plain", out, (uint32_t)n);
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	char path[32];
	int32_t n = k32_req_path(path, sizeof path);
	if (n == 5 && path[1] == 'd') return deep(4);
	if (n == 8 && path[1] == 'r') return recurse(0);
	if (n == 9 && path[1] == 'o') return overflow(36) ? 0 : 0;
	if (n == 5 && path[1] == 'g') return grow(0);
	if (n == 5 && path[1] == 'b') return grow(1);
	return check();
}
