package lower

import (
	"testing"

	"github.com/kube32/kube32/abi/wasmbin"
)

// Rule (the project's rule 3): bad input gets an error, never a panic.
// `go test -fuzz FuzzPod` mutates a WIT-named module and a component; the
// seeds run in every test run.
func FuzzPod(f *testing.F) {
	core := witModule(f)
	f.Add(core)
	// A component holding the module in its core module section.
	f.Add(wasmbin.AppendSection([]byte(wasmbin.ComponentHeader), compCoreModule, core))
	f.Fuzz(func(t *testing.T, bin []byte) {
		out, err := Pod(bin)
		if err == nil && out == nil {
			t.Fatal("no module and no error")
		}
	})
}
