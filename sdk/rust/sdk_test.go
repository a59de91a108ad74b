package rustsdk_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testkit/testabi"
	"github.com/kube32/kube32/internal/testkit/testenv"
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

func TestSysDeclaresTheTableImports(t *testing.T) {
	for _, noStd := range []bool{true, false} {
		t.Run(fmt.Sprintf("no_std=%v", noStd), func(t *testing.T) {
			cm := testabi.Compile(t, build(t, callsRust(noStd)))
			why := "" // std may import WASI
			if noStd {
				why = "a no_std pod imports nothing else"
			}
			testabi.CheckImports(t, cm, "sys.rs", why)
			testabi.CheckExports(t, cm, "k32::export!", "k32_handle", "k32_event", "k32_init", "k32_main")
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
