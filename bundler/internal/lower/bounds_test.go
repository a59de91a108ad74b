package lower

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
)

// allocated runs f and returns how many bytes it allocated (the heap's
// TotalAlloc, garbage included) and how long it took.
func allocated(f func()) (uint64, time.Duration) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, took
}

// Issue 29: a prebuilt .wasm of 40 MB made of 20 million empty sections
// once took the lowering 32 s and 3.4 GB before it refused it. A module or
// a component of more than abi.SectionsMax sections is refused, naming the
// limit, within a second and a few MB (measured as the heap's TotalAlloc
// around the call).
func TestMillionsOfEmptySectionsAreRefusedAtOnce(t *testing.T) {
	empty := bytes.Repeat([]byte{0x00, 0x00}, 20_000_000) // id 0, size 0
	for name, preamble := range map[string]string{"module": wasmbin.Header, "component": wasmbin.ComponentHeader} {
		t.Run(name, func(t *testing.T) {
			bin := append([]byte(preamble), empty...)
			var err error
			alloc, took := allocated(func() { _, err = Pod(bin) })
			if err == nil || !strings.Contains(err.Error(), "abi.SectionsMax") {
				t.Fatalf("Pod of %d bytes of empty sections: %v; want an error naming abi.SectionsMax", len(bin), err)
			}
			t.Logf("%s of %d bytes refused in %s, %d bytes allocated: %v", name, len(bin), took, alloc, err)
			if took > time.Second || alloc > 100<<20 {
				t.Errorf("refusing it took %s and %d bytes, want under 1 s and 100 MB", took, alloc)
			}
		})
	}
}

// The lowering keeps nothing per import, export or name: a module of
// WIT-named imports and exports by the hundred thousand, and a component
// whose name section names a million core modules it does not have, are
// lowered with allocations of at most three times their size.
func TestLoweringAllocatesASmallMultipleOfTheInput(t *testing.T) {
	const n = 400_000
	f := abi.Functions[0]
	var imports, exports []byte
	imports = wasmbin.AppendU32(imports, n)
	exports = wasmbin.AppendU32(exports, n+1)
	for i := range n {
		imports = wasmbin.AppendName(imports, abi.WITModule())
		imports = wasmbin.AppendName(imports, abi.WITName(f.Name))
		imports = append(imports, 0x00, 0x00) // a function of type 0
		exports = wasmbin.AppendName(exports, "e"+string(rune('a'+i%26))+strings.Repeat("x", i%7))
		exports = append(exports, 0x00, 0x00)
	}
	exports = wasmbin.AppendName(exports, "k32-handle")
	exports = append(exports, 0x00, 0x00)
	module := []byte(wasmbin.Header)
	module = wasmbin.AppendSection(module, sectionImport, imports)
	module = wasmbin.AppendSection(module, sectionExport, exports)

	names := wasmbin.AppendName(nil, "component-name")
	sub := []byte{0x00, 0x11}
	sub = wasmbin.AppendU32(sub, 1_000_000)
	for i := range uint32(1_000_000) {
		sub = wasmbin.AppendU32(sub, i)
		sub = wasmbin.AppendName(sub, "m")
	}
	names = append(names, 0x01)
	names = wasmbin.AppendU32(names, uint32(len(sub)))
	names = append(names, sub...)
	component := []byte(wasmbin.ComponentHeader)
	component = wasmbin.AppendSection(component, compCustom, names)
	component = wasmbin.AppendSection(component, compCoreModule, module)

	for name, bin := range map[string][]byte{"module": module, "component": component} {
		t.Run(name, func(t *testing.T) {
			var out []byte
			var err error
			alloc, took := allocated(func() { out, err = Pod(bin) })
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(out, []byte("\x0ak32_handle")) || bytes.Contains(out, []byte(abi.WITModule())) {
				t.Errorf("the %s was not lowered", name)
			}
			t.Logf("%s of %d bytes lowered in %s, %d bytes allocated", name, len(bin), took, alloc)
			if alloc > 3*uint64(len(bin))+1<<20 {
				t.Errorf("lowering %d bytes allocated %d bytes, more than three times as much", len(bin), alloc)
			}
		})
	}
}
