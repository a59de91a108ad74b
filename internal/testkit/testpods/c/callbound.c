// callbound: calls http://target/ with the timeout_ms given as the request
// path ("/<ms>") and answers with k32_http_call's result, so the tests see
// the timeout the Caller got and the call chain it carried.
#include "k32test.h"

static uint8_t resp[64];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	char path[16];
	int32_t n = k32_req_path(path, sizeof path);
	uint32_t ms = 0;
	for (int32_t i = 1; i < n; i++) ms = ms * 10 + (uint32_t)(path[i] - '0');
	uint32_t len = 0;
	int32_t rc = k32_http_call("GET", 3, "http://target/", 14, "", 0, 0, 0, resp, sizeof resp, &len, ms);
	return rc >= 100 ? rc : 500;
}
