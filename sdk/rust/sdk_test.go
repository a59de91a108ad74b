package rustsdk_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testenv"
	rustsdk "github.com/kube32/kube32/sdk/rust"
)

// callsRust is a pod that calls every host function of the ABI table once,
// with zero arguments, and defines every export with k32::export!.
// Compiling it with the SDK and reading the module's imports checks every
// declaration of the generated sys.rs against the table.
func callsRust(noStd bool) string {
	var b strings.Builder
	if noStd {
		b.WriteString("#![no_std]\n")
	}
	b.WriteString("use k32::sys;\n\nfn all() -> i32 {\n    let mut sum: i64 = 0;\n    unsafe {\n")
	for _, f := range abi.Functions {
		var args []string
		for _, p := range f.Params {
			if p.Type == abi.Ptr {
				args = append(args, "core::ptr::null_mut()")
			} else {
				args = append(args, "0")
			}
		}
		fmt.Fprintf(&b, "        sum += sys::%s(%s) as i64;\n", f.Name, strings.Join(args, ", "))
	}
	b.WriteString("    }\n    sum as i32\n}\n\nfn nothing() {}\n\nfn fails() -> k32::Result<()> {\n    Err(k32::Error(sys::K32_ERR_PERM))\n}\n\n")
	b.WriteString("k32::export!(main = all, handle = nothing, event = fails, init = nothing);\n")
	return b.String()
}

// build compiles a Rust pod of the given source with kube32's own compile
// path.
func build(t *testing.T, src string) []byte {
	t.Helper()
	testenv.Tool(t, "rustc")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"pod/src/lib.rs": src})
	m, err := compile.Compile(context.Background(), compile.Job{
		Name: "calls", Language: "rust", SourceDir: filepath.Join(dir, "pod"), CacheDir: filepath.Join(dir, "cache"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m.Wasm
}

func signature(params, results []api.ValueType) string {
	var p, r []string
	for _, v := range params {
		p = append(p, api.ValueTypeName(v))
	}
	for _, v := range results {
		r = append(r, api.ValueTypeName(v))
	}
	return "(" + strings.Join(p, ",") + ")->(" + strings.Join(r, ",") + ")"
}

func abiSignature(params, results []abi.Type) string {
	var p, r []string
	for _, v := range params {
		p = append(p, v.WasmType())
	}
	for _, v := range results {
		r = append(r, v.WasmType())
	}
	return "(" + strings.Join(p, ",") + ")->(" + strings.Join(r, ",") + ")"
}

func TestSysDeclaresTheTableImports(t *testing.T) {
	for _, noStd := range []bool{true, false} {
		t.Run(fmt.Sprintf("no_std=%v", noStd), func(t *testing.T) {
			wasm := build(t, callsRust(noStd))
			ctx := context.Background()
			r := wazero.NewRuntime(ctx)
			defer r.Close(ctx)
			cm, err := r.CompileModule(ctx, wasm)
			if err != nil {
				t.Fatal(err)
			}
			imported := map[string]bool{}
			for _, def := range cm.ImportedFunctions() {
				module, name, _ := def.Import()
				if module != abi.Module {
					if noStd {
						t.Errorf("import %s.%s: a no_std pod must import only module %q", module, name, abi.Module)
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
				if got, want := signature(def.ParamTypes(), def.ResultTypes()), abiSignature(params, f.Results); got != want {
					t.Errorf("import %s: %s in the module (from sys.rs), %s in abi.Functions", name, got, want)
				}
			}
			for _, f := range abi.Functions {
				if !imported[f.Name] {
					t.Errorf("%s: called by the test pod but not imported from module %q", f.Name, abi.Module)
				}
			}
			for _, name := range []string{"k32_handle", "k32_event", "k32_init", "k32_main"} {
				def, ok := cm.ExportedFunctions()[name]
				if !ok {
					t.Errorf("export %s missing: k32::export! does not define it", name)
					continue
				}
				e, _ := abi.LookupExport(name)
				if got, want := signature(def.ParamTypes(), def.ResultTypes()), abiSignature(e.Params, e.Results); got != want {
					t.Errorf("export %s: %s, abi.Exports says %s", name, got, want)
				}
			}
			if _, ok := cm.ExportedMemories()["memory"]; !ok {
				t.Error("the module does not export its memory")
			}
		})
	}
}

func TestSourceEmbedsTheCrate(t *testing.T) {
	for _, name := range []string{"Cargo.toml", "src/lib.rs", "src/sys.rs", "src/heap.rs"} {
		embedded, err := fs.ReadFile(rustsdk.Source, name)
		if err != nil {
			t.Errorf("rustsdk.Source: %v", err)
			continue
		}
		onDisk, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Fatal(err)
		}
		if string(embedded) != string(onDisk) {
			t.Errorf("rustsdk.Source %s differs from the file on disk", name)
		}
	}
}
