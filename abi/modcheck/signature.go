package modcheck

import (
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// signature is a function type written the way the ABI tables write it:
// "(i32, i32) -> i32", "() -> ()".
type signature struct{ params, results []string }

// String writes the signature; results in parentheses unless there is exactly one.
func (s signature) String() string {
	res := strings.Join(s.results, ", ")
	if len(s.results) != 1 {
		res = "(" + res + ")"
	}
	return "(" + strings.Join(s.params, ", ") + ") -> " + res
}

// equal reports whether s and o have the same wasm value types.
func (s signature) equal(o signature) bool {
	return strings.Join(s.params, ",") == strings.Join(o.params, ",") &&
		strings.Join(s.results, ",") == strings.Join(o.results, ",")
}

// sigOfDefinition is the signature of a compiled function.
func sigOfDefinition(d api.FunctionDefinition) signature {
	return signature{params: valueTypeNames(d.ParamTypes()), results: valueTypeNames(d.ResultTypes())}
}

// valueTypeNames names wasm value types ("i32", "i64", ...).
func valueTypeNames(ts []api.ValueType) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = api.ValueTypeName(t)
	}
	return names
}

// sigOfFunction is the wasm signature of an ABI host function.
func sigOfFunction(f abi.Function) signature {
	s := signature{params: make([]string, len(f.Params)), results: make([]string, len(f.Results))}
	for i, p := range f.Params {
		s.params[i] = p.Type.WasmType()
	}
	for i, r := range f.Results {
		s.results[i] = r.WasmType()
	}
	return s
}

// sigOfExport is the wasm signature of an ABI export.
func sigOfExport(e abi.Export) signature {
	s := signature{params: make([]string, len(e.Params)), results: make([]string, len(e.Results))}
	for i, p := range e.Params {
		s.params[i] = p.WasmType()
	}
	for i, r := range e.Results {
		s.results[i] = r.WasmType()
	}
	return s
}
