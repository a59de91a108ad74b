// logflood: a request pod that logs in a loop, for the log rate limit tests.
// GET /?<lines>,<bytes> writes <lines> lines of <bytes> bytes each, newline
// included, to stdout, "flood <i> xxx...", and answers "written=<lines>":
// how many lines it wrote. It includes the C SDK and decimal.h of its
// folder, which bench/faults builds it with as a project's pod.
#include <unistd.h>
#include "k32.h"
#include "decimal.h"

static char query[64];
static char line[8192];
static char out[32];

// number reads the decimal at *p and moves *p past it and one separator.
static uint32_t number(const char **p, const char *end) {
	uint32_t v = 0;
	while (*p < end && **p >= '0' && **p <= '9') v = v * 10 + (uint32_t)(*(*p)++ - '0');
	if (*p < end) (*p)++;
	return v;
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	int32_t q = k32_req_query(query, sizeof query);
	if (q < 0) q = 0;
	const char *p = query, *end = query + q;
	uint32_t lines = number(&p, end), size = number(&p, end);
	if (size < 16) size = 16;
	if (size > sizeof line) size = sizeof line;
	uint32_t written = 0;
	for (uint32_t i = 0; i < lines; i++) {
		uint32_t n = 0;
		for (const char *s = "flood "; *s; s++) line[n++] = *s;
		n += decimal(line + n, i);
		line[n++] = ' ';
		while (n < size - 1) line[n++] = 'x';
		line[n++] = '\n';
		if (write(1, line, n) == (ssize_t)n) written++;
	}
	uint32_t o = 0;
	for (const char *s = "written="; *s; s++) out[o++] = *s;
	o += decimal(out + o, written);
	k32_resp_write(out, o);
	return 0;
}
