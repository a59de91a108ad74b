package gen

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kube32/kube32/abi"
)

// cPointerTypes gives the C type of every pointer parameter, keyed
// "function.param". The ABI only knows "ptr"; C callers also need to know
// whether it points at text or bytes and whether the host writes through it,
// so that string literals pass without casts and const-ness documents the
// direction. The types of k32_http_call and k32_resp_asset are fixed by the
// spec. A pointer parameter missing here fails rendering rather than
// guessing, so a new host function cannot get a wrong C type silently.
var cPointerTypes = map[string]string{
	"k32_log.msg":            "const char*",
	"k32_env_get.key":        "const char*",
	"k32_env_get.out":        "char*",
	"k32_random.out":         "void*",
	"k32_req_method.out":     "char*",
	"k32_req_path.out":       "char*",
	"k32_req_query.out":      "char*",
	"k32_req_header.name":    "const char*",
	"k32_req_header.out":     "char*",
	"k32_req_headers.out":    "char*",
	"k32_req_read.out":       "uint8_t*",
	"k32_resp_header.name":   "const char*",
	"k32_resp_header.value":  "const char*",
	"k32_resp_write.data":    "const void*",
	"k32_resp_asset.path":    "const char*",
	"k32_http_call.method":   "const char*",
	"k32_http_call.url":      "const char*",
	"k32_http_call.headers":  "const char*",
	"k32_http_call.body":     "const uint8_t*",
	"k32_http_call.resp":     "uint8_t*",
	"k32_http_call.resp_len": "uint32_t*",
	"k32_http_header.name":   "const char*",
	"k32_http_header.out":    "char*",
	"k32_publish.topic":      "const char*",
	"k32_publish.data":       "const void*",
	"k32_event_topic.out":    "char*",
	"k32_event_data.out":     "uint8_t*",
}

// cScalarTypes are the C types of the ABI's value types.
var cScalarTypes = map[abi.Type]string{
	abi.U32: "uint32_t",
	abi.I32: "int32_t",
	abi.I64: "int64_t",
}

// cParamType is the C type of parameter p of host function fn.
func cParamType(fn string, p abi.Param) (string, error) {
	if p.Type == abi.Ptr {
		t, ok := cPointerTypes[fn+"."+p.Name]
		if !ok {
			return "", fmt.Errorf("%s.%s: pointer parameter without a C type; add it to cPointerTypes in abi/internal/gen/ctypes.go", fn, p.Name)
		}
		return t, nil
	}
	return cResultType([]abi.Type{p.Type})
}

// cResultType is the C return type of a function with results.
func cResultType(results []abi.Type) (string, error) {
	switch len(results) {
	case 0:
		return "void", nil
	case 1:
		if t, ok := cScalarTypes[results[0]]; ok {
			return t, nil
		}
		return "", fmt.Errorf("result type %q has no C type", results[0])
	}
	return "", fmt.Errorf("%d results; C functions return at most one", len(results))
}

// checkCPointerTypes reports entries of cPointerTypes that name no pointer
// parameter of the table: a renamed parameter must not leave a stale entry.
func checkCPointerTypes() error {
	used := map[string]bool{}
	for _, f := range abi.Functions {
		for _, p := range f.Params {
			if p.Type == abi.Ptr {
				used[f.Name+"."+p.Name] = true
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(cPointerTypes)) {
		if !used[key] {
			return fmt.Errorf("cPointerTypes[%q] names no pointer parameter of abi.Functions", key)
		}
	}
	return nil
}
