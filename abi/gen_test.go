package abi_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/abi/internal/gen"
)

// TestGeneratedFilesAreCurrent fails when a generated file differs from what
// the generator renders from the tables now.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := gen.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		path := filepath.Join("..", filepath.FromSlash(f.Path))
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v; run `go generate ./abi`", f.Path, err)
			continue
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s is stale: it differs from what the ABI tables generate (first difference at line %d); run `go generate ./abi`",
				f.Path, firstDiffLine(got, f.Data))
		}
	}
}

// TestGeneratorIsDeterministic renders twice: map iteration or other
// nondeterminism would make the committed files flap.
func TestGeneratorIsDeterministic(t *testing.T) {
	a, err := gen.Files()
	if err != nil {
		t.Fatal(err)
	}
	b, err := gen.Files()
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s: two renderings differ", a[i].Path)
		}
	}
}

// firstDiffLine is the 1-based line where a and b first differ.
func firstDiffLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return line
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
