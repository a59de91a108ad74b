// pathcstr: k32.h's k32_req_path_cstr against the node. It reads the path
// into a 16-byte buffer (room for 15 bytes and the NUL) and answers
// "n=<result> path=<buffer as a C string>". The buffer starts as "x", so
// that an empty path= after an error is the helper's doing.
// It includes only the C SDK, as a project's pod does.
#include "k32.h"

// decimal writes v at s, with its sign, and returns how many characters it took.
static uint32_t decimal(char *s, int32_t v) {
	char t[12];
	uint32_t n = 0, i = 0;
	uint32_t u = v < 0 ? (uint32_t)(-(int64_t)v) : (uint32_t)v;
	do { t[n++] = (char)('0' + u % 10); u /= 10; } while (u);
	if (v < 0) s[i++] = '-';
	while (n) s[i++] = t[--n];
	return i;
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	char path[16] = "x";
	char num[12];
	int32_t n = k32_req_path_cstr(path, sizeof path);
	k32_write_str("n=");
	k32_resp_write(num, decimal(num, n));
	k32_write_str(" path=");
	k32_write_str(path);
	return 0;
}
