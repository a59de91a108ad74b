// A request pod written against the WIT world kube32:app/pod (abi/k32.wit):
// it imports the host functions by their WIT names, as a binding generator
// writes them, and exports every callback of the world in kebab case (a
// component of world pod must export them all; the node calls k32_handle,
// since a pod with k32_handle is a request pod). It uses no libc, so it
// has no WASI imports and a component encoder needs no adapter.
#include <stdint.h>
#ifdef WIT_WASI
#include <unistd.h>
#endif

// Tests build it with -DWIT_MODULE=… or -DWIT_UNKNOWN to see the build
// refuse another version or an unknown function, with -DWIT_TWICE to
// export k32_handle under both names, and with -DWIT_WASI to
// give it a WASI import (a component of it then needs the WASI adapter).
#ifndef WIT_MODULE
#define WIT_MODULE "kube32:app/k32@0.1.0"
#endif
#define WIT_IMPORT(name) \
	__attribute__((import_module(WIT_MODULE), import_name(name)))

WIT_IMPORT("k32-resp-status") int32_t resp_status(uint32_t status);
WIT_IMPORT("k32-resp-header") int32_t resp_header(const char* name, uint32_t name_len, const char* value, uint32_t value_len);
WIT_IMPORT("k32-resp-write") int32_t resp_write(const char* data, uint32_t len);
WIT_IMPORT("k32-req-path") int32_t req_path(char* out, uint32_t cap);
WIT_IMPORT("k32-env-get") int32_t env_get(const char* key, uint32_t key_len, char* out, uint32_t cap);

#ifdef WIT_UNKNOWN
WIT_IMPORT("k32-teleport") int32_t teleport(void);
#endif

static int32_t inits;

__attribute__((export_name("initialize"))) void initialize(void) {
	inits = 0;
}

__attribute__((export_name("k32-init"))) int32_t init(void) {
	inits++;
	return 0;
}

#ifdef WIT_TWICE
__attribute__((export_name("k32_handle"))) int32_t handle_again(void) {
	return 0;
}
#endif

__attribute__((export_name("k32-event"))) int32_t event(void) {
	return 0;
}

__attribute__((export_name("k32-main"))) int32_t main_loop(void) {
	return 0;
}

__attribute__((export_name("start"))) void start(void) {
}

__attribute__((export_name("k32-handle"))) int32_t handle(void) {
	static char path[256];
#ifdef WIT_UNKNOWN
	teleport();
#endif
#ifdef WIT_WASI
	write(1, "request\n", 8);
#endif
	int32_t n = req_path(path, sizeof path);
	if (n < 0 || n > (int32_t)sizeof path) {
		n = 0;
	}
	static const char ct[] = "Content-Type";
	static const char text[] = "text/plain";
	resp_header(ct, sizeof ct - 1, text, sizeof text - 1);
	resp_status(200);
	static const char hello[] = "wit names, inits=";
	resp_write(hello, sizeof hello - 1);
	char digit = (char)('0' + inits % 10);
	resp_write(&digit, 1);
	static const char at[] = " path=";
	resp_write(at, sizeof at - 1);
	resp_write(path, (uint32_t)n);
	static char val[64];
	static const char key[] = "WIT_GREETING";
	int32_t m = env_get(key, sizeof key - 1, val, sizeof val);
	if (m > 0 && m <= (int32_t)sizeof val) {
		static const char g[] = " greeting=";
		resp_write(g, sizeof g - 1);
		resp_write(val, (uint32_t)m);
	}
	resp_write("\n", 1);
	return 0;
}
