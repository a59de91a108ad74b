// Package testabi checks the SDKs' test pods against the ABI tables of
// package abi: the host functions a compiled module imports, the exports it
// defines, and a recording host that answers every host function.
package testabi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
)

// Compile compiles wasm with a wazero runtime that lives until the test ends.
func Compile(t testing.TB, wasm []byte) wazero.CompiledModule {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { r.Close(ctx) })
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatalf("compiling the test pod: %v", err)
	}
	return cm
}

// Signature renders wazero value types as "(i32,i32)->(i64)".
func Signature(params, results []api.ValueType) string {
	return valueTypes(params) + "->" + valueTypes(results)
}

// ABISignature renders ABI types like Signature.
func ABISignature(params, results []abi.Type) string {
	return wasmTypes(params) + "->" + wasmTypes(results)
}

func valueTypes(types []api.ValueType) string {
	var s []string
	for _, t := range types {
		s = append(s, api.ValueTypeName(t))
	}
	return "(" + strings.Join(s, ",") + ")"
}

func wasmTypes(types []abi.Type) string {
	var s []string
	for _, t := range types {
		s = append(s, t.WasmType())
	}
	return "(" + strings.Join(s, ",") + ")"
}

// CheckImports checks that cm imports every host function of abi.Functions
// with the table's signature (from names the declarations under test in the
// messages). An import of another module is an error, explained by why,
// unless why is "" (a module that may import more, such as Rust's std).
func CheckImports(t testing.TB, cm wazero.CompiledModule, from, why string) {
	t.Helper()
	imported := map[string]bool{}
	for _, def := range cm.ImportedFunctions() {
		module, name, _ := def.Import()
		if module != abi.Module {
			if why != "" {
				t.Errorf("import %s.%s: only module %q expected (%s)", module, name, abi.Module, why)
			}
			continue
		}
		f, ok := abi.Lookup(name)
		if !ok {
			t.Errorf("import %s.%s: not a host function of abi.Functions", module, name)
			continue
		}
		imported[name] = true
		var params []abi.Type
		for _, p := range f.Params {
			params = append(params, p.Type)
		}
		if got, want := Signature(def.ParamTypes(), def.ResultTypes()), ABISignature(params, f.Results); got != want {
			t.Errorf("import %s: %s in the module (from %s), %s in abi.Functions", name, got, from, want)
		}
	}
	for _, f := range abi.Functions {
		if !imported[f.Name] {
			t.Errorf("%s: called by the test pod but not imported from module %q; check its declaration in %s", f.Name, abi.Module, from)
		}
	}
}

// CheckExports checks that cm exports each of names with the signature of
// abi.Exports (how names what should define them), and its memory.
func CheckExports(t testing.TB, cm wazero.CompiledModule, how string, names ...string) {
	t.Helper()
	for _, name := range names {
		def, ok := cm.ExportedFunctions()[name]
		if !ok {
			t.Errorf("export %s missing: %s does not define it", name, how)
			continue
		}
		e, ok := abi.LookupExport(name)
		if !ok {
			t.Fatalf("%s is not an export of abi.Exports", name)
		}
		if got, want := Signature(def.ParamTypes(), def.ResultTypes()), ABISignature(e.Params, e.Results); got != want {
			t.Errorf("export %s: %s, abi.Exports says %s", name, got, want)
		}
	}
	if _, ok := cm.ExportedMemories()["memory"]; !ok {
		t.Error("the module does not export its memory as \"memory\"")
	}
}

// Call is one call of a host function by a test pod.
type Call struct {
	Name  string
	M     api.Module
	Stack []uint64
}

// Str is the string argument whose pointer and length are the arguments i
// and i+1.
func (c Call) Str(i int) string { return read(c.M, c.Name, c.Stack[i], c.Stack[i+1]) }

// Put writes v to the buffer whose pointer and capacity are the arguments
// i and i+1, as a getter does, and returns len(v).
func (c Call) Put(v string, i int) uint64 { return write(c.M, v, c.Stack[i], c.Stack[i+1]) }

// Host instantiates, in r, module k32 with every host function of
// abi.Functions: rec records what the pod logs and answers, answer
// implements what else the test needs (ok false: not implemented), and
// every other function returns K32_ERR_NOTSUP.
func Host(t testing.TB, r wazero.Runtime, rec *Recorder, answer func(c Call) (result uint64, ok bool)) api.Module {
	t.Helper()
	ctx := context.Background()
	b := r.NewHostModuleBuilder(abi.Module)
	for _, f := range abi.Functions {
		var params, results []api.ValueType
		for _, p := range f.Params {
			params = append(params, valueType(p.Type))
		}
		for _, res := range f.Results {
			results = append(results, valueType(res))
		}
		fn := func(_ context.Context, m api.Module, stack []uint64) {
			result, ok := rec.Record(f.Name, m, stack)
			if !ok {
				result, ok = answer(Call{f.Name, m, stack})
			}
			if !ok {
				result = api.EncodeI32(int32(abi.ErrNotSup))
			}
			stack[0] = result
		}
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(fn), params, results).Export(f.Name)
	}
	m, err := b.Instantiate(ctx)
	if err != nil {
		t.Fatalf("instantiating the host: %v", err)
	}
	t.Cleanup(func() { m.Close(ctx) })
	return m
}

// valueType is the wazero value type of an ABI type.
func valueType(t abi.Type) api.ValueType {
	if t.WasmType() == "i64" {
		return api.ValueTypeI64
	}
	return api.ValueTypeI32
}

// read is the string of n bytes at ptr in m's memory, as a host function
// reads its arguments; a range outside the memory panics, naming fn.
func read(m api.Module, fn string, ptr, n uint64) string {
	b, ok := m.Memory().Read(uint32(ptr), uint32(n))
	if !ok {
		panic(fmt.Sprintf("%s: range %d+%d outside memory", fn, ptr, n))
	}
	return string(b)
}

// write copies v, cut to cap bytes, to out in m's memory and returns
// len(v), as the ABI's getters do.
func write(m api.Module, v string, out, cap uint64) uint64 {
	m.Memory().Write(uint32(out), []byte(v)[:min(uint64(len(v)), cap)])
	return uint64(len(v))
}

// Recorder keeps what a test pod logs and answers: the part of a
// recording host that every SDK's test shares.
type Recorder struct {
	Logs    []string // "<level> <message>"
	Status  uint32
	Headers []string // "Name: value"
	Body    string
}

// Record implements host function name when it is k32_log or one of the
// k32_resp_* writers, with the result it returns; ok is false for any
// other function.
func (r *Recorder) Record(name string, m api.Module, stack []uint64) (result uint64, ok bool) {
	str := func(ptr, n uint64) string { return read(m, name, ptr, n) }
	switch name {
	case "k32_log":
		r.Logs = append(r.Logs, fmt.Sprintf("%d %s", api.DecodeI32(stack[0]), str(stack[1], stack[2])))
		return 0, true
	case "k32_resp_status":
		r.Status = api.DecodeU32(stack[0])
		return 0, true
	case "k32_resp_header":
		r.Headers = append(r.Headers, str(stack[0], stack[1])+": "+str(stack[2], stack[3]))
		return 0, true
	case "k32_resp_write":
		r.Body += str(stack[0], stack[1])
		return stack[1], true
	}
	return 0, false
}
