package pod

import (
	"context"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
)

// wasmModule encodes a minimal module that imports every function of
// abi.Functions with its ABI signature, exports one page of memory and a
// k32_handle returning 0. It comes from the table, so a function added to
// abi/ is imported here too.
func wasmModule() []byte {
	leb := func(v uint32) []byte { return wasmbin.AppendU32(nil, v) }
	name := func(s string) []byte { return wasmbin.AppendName(nil, s) }
	vec := func(items [][]byte) []byte {
		out := leb(uint32(len(items)))
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	section := func(id byte, body []byte) []byte { return wasmbin.AppendSection(nil, id, body) }
	valType := func(t abi.Type) byte {
		if t.WasmType() == "i64" {
			return 0x7e
		}
		return 0x7f
	}

	var types, imports [][]byte
	for i, f := range abi.Functions {
		params := make([][]byte, len(f.Params))
		for j, p := range f.Params {
			params[j] = []byte{valType(p.Type)}
		}
		results := make([][]byte, len(f.Results))
		for j, r := range f.Results {
			results[j] = []byte{valType(r)}
		}
		types = append(types, append(append([]byte{0x60}, vec(params)...), vec(results)...))
		imp := append(append(name(abi.Module), name(f.Name)...), 0x00)
		imports = append(imports, append(imp, leb(uint32(i))...))
	}
	handleType := uint32(len(types))
	types = append(types, []byte{0x60, 0x00, 0x01, 0x7f}) // () -> i32
	n := uint32(len(abi.Functions))

	mod := []byte(wasmbin.Header)
	mod = append(mod, section(1, vec(types))...)
	mod = append(mod, section(2, vec(imports))...)
	mod = append(mod, section(3, vec([][]byte{leb(handleType)}))...)
	mod = append(mod, section(5, vec([][]byte{{0x00, 0x01}}))...) // one memory, min 1 page
	mod = append(mod, section(7, vec([][]byte{
		append(name("memory"), 0x02, 0x00),
		append(append(name("k32_handle"), 0x00), leb(n)...),
	}))...)
	body := []byte{0x00, 0x41, 0x00, 0x0b} // no locals; i32.const 0; end
	mod = append(mod, section(10, vec([][]byte{append(leb(uint32(len(body))), body...)}))...)
	return mod
}

func TestEveryABIFunctionIsRegistered(t *testing.T) {
	for _, f := range abi.Functions {
		if hostImpls[f.Name] == nil {
			t.Errorf("abi function %s has no host implementation", f.Name)
		}
	}
	for name := range hostImpls {
		if _, ok := abi.Lookup(name); !ok {
			t.Errorf("host implementation %s is not in abi.Functions", name)
		}
	}
	// Linking proves each import resolves in module "k32" with its signature.
	p := New(Config{Namespace: "default", Name: "all-imports", Module: wasmModule()})
	defer p.Stop()
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("a module importing every abi.Functions entry did not start: %v", err)
	}
}
