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
	Hook = func(string) error { return errors.New("card pulled") }
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
}
