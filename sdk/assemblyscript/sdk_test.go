package assdk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testkit/testabi"
	"github.com/kube32/kube32/internal/testkit/testasc"
	"github.com/kube32/kube32/internal/testkit/testenv"
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

// Issue 32: the raw imports, generated from the ABI tables (abi's
// TestGeneratedFilesAreCurrent keeps sys.ts current), import every host
// function with the table's signature, and the module imports nothing but
// module k32: abort, trace and Math.random's seed go to the SDK.
func TestSysDeclaresTheTableImports(t *testing.T) {
	cm := testabi.Compile(t, build(t, callsAll(), false))
	testabi.CheckImports(t, cm, "sys.ts", "an AssemblyScript pod imports nothing else")
	testabi.CheckExports(t, cm, "the SDK", "k32_handle", "_initialize")
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
