package lower

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/kube32/kube32/internal/testkit/testjco"
)

const k32WIT = "../../../abi/k32.wit"

// codeSection returns the body of a core module's code section.
func codeSection(t *testing.T, wasm []byte) []byte {
	t.Helper()
	secs, err := sections(wasm)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.id == 10 {
			return s.body
		}
	}
	t.Fatal("no code section")
	return nil
}

// checkLoweredImports checks that a lowered module passes the module check
// and imports only from k32 and WASI preview 1.
func checkLoweredImports(t *testing.T, out []byte) []string {
	t.Helper()
	rep, err := modcheck.Check(context.Background(), out, modcheck.Options{})
	if err != nil {
		t.Fatalf("the module check refuses the unwrapped module: %v", err)
	}
	for _, im := range rep.Imports {
		if !strings.HasPrefix(im, "k32.") && !strings.HasPrefix(im, "wasi_snapshot_preview1.") {
			t.Errorf("unwrapped module imports %s", im)
		}
	}
	return rep.Imports
}

// Rule (docs/components.md, "Prebuilt modules and components"): a
// component of world kube32:app/pod, made by jco, is unwrapped to its core
// module and lowered.
func TestComponentOfWorldPodIsUnwrappedAndLowered(t *testing.T) {
	core := witModule(t)
	comp := testjco.Component(t, k32WIT, "pod", core, testjco.NoAdapter)
	if !bytes.HasPrefix(comp, []byte(wasmbin.ComponentHeader)) {
		t.Fatalf("jco made no component: preamble % x", comp[:8])
	}
	out, err := Pod(comp)
	if err != nil {
		t.Fatal(err)
	}
	if imports := checkLoweredImports(t, out); len(imports) != 5 {
		t.Errorf("imports %q, want the pod's five k32 functions", imports)
	}
	if !bytes.Equal(codeSection(t, out), codeSection(t, core)) {
		t.Error("the unwrapped module's code is not the pod's")
	}
}

// Rule: a component adapted from WASI preview 1 (jco's
// wasi_snapshot_preview1 adapter) runs its own core module, whose WASI
// preview 1 imports the boards provide; the adapter is left out.
func TestAdaptedComponentRunsItsOwnModule(t *testing.T) {
	core := witModule(t, "-DWIT_WASI")
	comp := testjco.Component(t, k32WIT, "pod", core, testjco.Reactor)
	out, err := Pod(comp)
	if err != nil {
		t.Fatal(err)
	}
	imports := checkLoweredImports(t, out)
	if len(imports) != 6 || imports[5] != "wasi_snapshot_preview1.fd_write" {
		t.Errorf("imports %q, want the pod's five k32 functions and fd_write", imports)
	}
	if !bytes.Equal(codeSection(t, out), codeSection(t, core)) {
		t.Error("the unwrapped module's code is not the pod's")
	}
}

// podCore is a minimal core module in the text format, for components
// written by hand.
const podCore = `(core module $pod
    (memory (export "memory") 1)
    (func (export "k32-handle") (result i32) i32.const 0))`

// Rule: what a core module cannot express is refused naming the construct.
func TestComponentConstructsACoreModuleCannotExpressAreRefused(t *testing.T) {
	cases := []struct {
		name, wat string
		want      []string
	}{
		{"second core module", "(component " + podCore + ` (core module $helper))`,
			[]string{"a second core module", `"helper"`}},
		{"unknown interface", `(component (import "wasi:http/outgoing-handler@0.2.0" (instance)) ` + podCore + ")",
			[]string{"wasi:http/outgoing-handler@0.2.0"}},
		{"unknown package", `(component (import "acme:db/query@1.0.0" (instance)) ` + podCore + ")",
			[]string{"acme:db/query@1.0.0"}},
		{"other version", `(component (import "kube32:app/k32@0.2.0" (instance)) ` + podCore + ")",
			[]string{"kube32:app/k32@0.2.0", "version 0.1.0"}},
		{"resources", "(component " + podCore + ` (type $r (resource (rep i32))) (core func (canon resource.new $r)))`,
			[]string{"resources", "resource.new"}},
		{"nested component", "(component " + podCore + " (component))",
			[]string{"nested component"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Pod(testjco.Parse(t, tc.wat))
			if err == nil {
				t.Fatal("unwrapped, want refused")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
			t.Log(err)
		})
	}
}
