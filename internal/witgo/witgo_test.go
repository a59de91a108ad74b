package witgo

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
)

// The Go bindings import every host function of the ABI from the WIT's
// module under its WIT name (the lowering turns them back into the board's
// names, docs/components.md), and export the request handler only: the Go
// runtime writes _initialize itself, and an unset k32-main would make every
// pod long-running.
func TestGoBindingsImportEveryHostFunctionAndExportTheHandler(t *testing.T) {
	dir := t.TempDir()
	if _, err := Generate(abi.WIT, dir); err != nil {
		t.Fatal(err)
	}
	imports := readDir(t, filepath.Join(dir, "kube32", "app", "k32"))
	module := abi.WITModule()
	var got []string
	for _, m := range regexp.MustCompile(`//go:wasmimport (\S+) (\S+)`).FindAllStringSubmatch(imports, -1) {
		if m[1] != module {
			t.Errorf("import from module %s, want %s", m[1], module)
		}
		got = append(got, m[2])
	}
	var want []string
	for _, f := range abi.Functions {
		want = append(want, abi.WITName(f.Name))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("imports %q,\nwant %q", got, want)
	}
	exports := regexp.MustCompile(`//go:wasmexport (\S+)`).FindAllStringSubmatch(readDir(t, filepath.Join(dir, "kube32", "app", "pod")), -1)
	if len(exports) != 1 || exports[0][1] != "k32-handle" {
		t.Errorf("exports %q, want k32-handle only", exports)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !strings.Contains(string(mod), "module "+ModulePath+"\n") || !strings.Contains(string(mod), CM+" "+CMVersion) {
		t.Errorf("go.mod (%v):\n%s", err, mod)
	}
}

func readDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}
