//go:build !wasm

package k32

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestSourceHoldsEveryNonTestFile keeps the //go:embed list of source.go in
// step with the files on disk: an offline copy missing a file would not
// build, and one with test files or testdata would carry dead weight.
func TestSourceHoldsEveryNonTestFile(t *testing.T) {
	var want []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return fs.SkipDir
		}
		if !d.IsDir() && (path == "go.mod" || strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")) {
			want = append(want, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = fs.WalkDir(Source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			got = append(got, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Source holds\n  %v\nbut the module's non-test files are\n  %v\nedit the //go:embed lines of source.go", got, want)
	}
	for _, p := range got {
		data, _ := fs.ReadFile(Source, p)
		disk, _ := os.ReadFile(p)
		if string(data) != string(disk) {
			t.Errorf("Source copy of %s differs from the file", p)
		}
	}
}
