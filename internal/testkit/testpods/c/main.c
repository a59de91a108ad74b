// main: a long-running pod; k32_main returns the number in env EXIT (0 when
// unset). With env SLEEP set it first sleeps until k32_sleep_ms fails (as a
// worker loop ends when its node stops it: K32_ERR_INTR) and returns that.
#include "k32test.h"
K32_EXPORT(k32_main) int32_t k32_main(void) {
	char v[16];
	if (k32_env_get(LIT("SLEEP"), v, sizeof v) >= 0) {
		k32_log(1, LIT("main sleeps"));
		int32_t r;
		while ((r = k32_sleep_ms(1000)) == 0) {
		}
		return r;
	}
	int32_t n = k32_env_get(LIT("EXIT"), v, sizeof v);
	int32_t code = 0;
	for (int32_t i = 0; i < n && i < (int32_t)sizeof v; i++) code = code * 10 + (v[i] - '0');
	k32_log(1, LIT("main ran"));
	return code;
}
