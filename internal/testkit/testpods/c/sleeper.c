// sleeper: a request pod that holds its caller, for the call timeout tests.
//   GET /sleep?<ms>  sleeps <ms> milliseconds in k32_sleep_ms, then answers
//   GET /loop        loops forever
//   GET /            answers "served=<n>": how many requests this instance
//                    has handled, this one included, so that a test sees a
//                    fresh instance (n starts again at 1)
// It includes the C SDK and decimal.h of its folder, which bench/faults
// builds it with as a project's pod.
#include "k32.h"
#include "decimal.h"

static uint32_t served;
static char query[16];
static char out[32];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	char path[16];
	int32_t n = k32_req_path(path, sizeof path);
	served++;
	if (k32_equals(path, sizeof path, n, "/loop")) {
		volatile uint32_t i = 0;
		for (;;) i++;
	}
	if (k32_equals(path, sizeof path, n, "/sleep")) {
		int32_t q = k32_req_query(query, sizeof query);
		uint32_t ms = 0;
		for (int32_t i = 0; i < q && query[i] >= '0' && query[i] <= '9'; i++) ms = ms * 10 + (uint32_t)(query[i] - '0');
		k32_sleep_ms(ms);
		return k32_write_str("slept\n") < 0 ? 500 : 0;
	}
	uint32_t o = 0;
	for (const char *s = "served="; *s; s++) out[o++] = *s;
	o += decimal(out + o, served);
	k32_resp_write(out, o);
	return 0;
}
