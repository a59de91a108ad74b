package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new!" {
		t.Errorf("contents %q", b)
	}
}

func TestInterruptedWriteKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var left []string
	Hook = func(string) error {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() != "f" {
				left = append(left, e.Name())
			}
		}
		return errors.New("card pulled")
	}
	defer func() { Hook = nil }()
	if err := WriteFile(p, []byte("new contents"), 0o644); err == nil {
		t.Fatal("write succeeded")
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("contents %q, want old", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary file left behind: %v", ents)
	}
	// What a crash would have left is recognised as ours.
	if len(left) != 1 || !IsTemp(left[0]) {
		t.Errorf("temporary files while writing: %q; want one that IsTemp accepts", left)
	}
}

func TestIsTempKnowsOnlyOurNames(t *testing.T) {
	for name, want := range map[string]bool{
		".k32tmp-echo.wasm-2837461": true,
		".k32tmp-a-b.css-1":         true,
		"echo.wasm":                 false,
		".k32tmp-":                  false,
		".k32tmp--123":              false,
		".k32tmp-notes-":            false,
		".k32tmp-notes-draft":       false,
		"k32tmp-echo.wasm-123":      false,
		".k32tmp-old-site":          false,
	} {
		if IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, !want, want)
		}
	}
}
