package assdk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testasc"
	"github.com/kube32/kube32/internal/testenv"
)

// callsAll is a pod that calls every host function of the ABI table once
// through the generated k32/sys.ts, with zero arguments. Compiling it with
// the real asc and reading the module's imports checks every declaration
// of sys.ts against the table.
func callsAll() string {
	var b strings.Builder
	b.WriteString("import * as sys from \"k32/sys\";\n\nexport function k32_handle(): i32 {\n  let sum: i64 = 0;\n")
	for _, f := range abi.Functions {
		args := make([]string, len(f.Params))
		for i := range args {
			args[i] = "0"
		}
		fmt.Fprintf(&b, "  sum += <i64>sys.%s(%s);\n", f.Name, strings.Join(args, ", "))
	}
	b.WriteString("  return <i32>sum;\n}\n")
	return b.String()
}

// build compiles an AssemblyScript pod of the given main.ts with kube32's
// own compile path and the real asc.
func build(t *testing.T, src string, release bool) []byte {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"pod/main.ts": src})
	testasc.Link(t, filepath.Join(dir, "pod"))
	m, err := compile.Compile(context.Background(), compile.Job{
		Name: "calls", Language: "assemblyscript", SourceDir: filepath.Join(dir, "pod"), RootDir: dir,
		CacheDir: filepath.Join(dir, "cache"), MemoryLimit: 64 << 10, Release: release,
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

// Issue 32: the raw imports, generated from the ABI tables (abi's
// TestGeneratedFilesAreCurrent keeps sys.ts current), import every host
// function with the table's signature, and the module imports nothing but
// module k32: abort, trace and Math.random's seed go to the SDK.
func TestSysDeclaresTheTableImports(t *testing.T) {
	wasm := build(t, callsAll(), false)
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
			t.Errorf("import %s.%s: an AssemblyScript pod must import only module %q", module, name, abi.Module)
			continue
		}
		f, ok := abi.Lookup(name)
		if !ok {
			t.Errorf("import %s: not a host function of abi.Functions", name)
			continue
		}
		imported[name] = true
		var params []abi.Type
		for _, p := range f.Params {
			params = append(params, p.Type)
		}
		if got, want := signature(def.ParamTypes(), def.ResultTypes()), abiSignature(params, f.Results); got != want {
			t.Errorf("import %s: %s in the module (from sys.ts), %s in abi.Functions", name, got, want)
		}
	}
	for _, f := range abi.Functions {
		if !imported[f.Name] {
			t.Errorf("%s: called by the test pod but not imported from module %q", f.Name, abi.Module)
		}
	}
	exports := cm.ExportedFunctions()
	for _, name := range []string{"k32_handle", "_initialize"} {
		if _, ok := exports[name]; !ok {
			t.Errorf("export %s missing", name)
		}
	}
	if _, ok := cm.ExportedMemories()["memory"]; !ok {
		t.Error("the module does not export its memory")
	}
}

// The SDK compiles to its files only: a test that reads the embedded copy
// and the checkout alike would miss a file left out of the embed.
func TestSourceEmbedsEveryFile(t *testing.T) {
	for _, dir := range []string{"k32", "lib"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if _, err := readEmbedded(dir + "/" + e.Name()); err != nil {
				t.Errorf("%s/%s is not embedded: %v", dir, e.Name(), err)
			}
		}
	}
}
