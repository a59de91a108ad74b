// main: a long-running pod; k32_main returns the number in env EXIT (0 when unset).
#include "k32test.h"
K32_EXPORT(k32_main) int32_t k32_main(void) {
	char v[16];
	int32_t n = k32_env_get(LIT("EXIT"), v, sizeof v);
	int32_t code = 0;
	for (int32_t i = 0; i < n && i < (int32_t)sizeof v; i++) code = code * 10 + (v[i] - '0');
	k32_log(1, LIT("main ran"));
	return code;
}
