package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Find looks in the folder, then in each parent, and stops at the nearest
// kube32.yaml.
func TestFindLooksUpward(t *testing.T) {
	outer := t.TempDir()
	inner := filepath.Join(outer, "nested")
	deep := filepath.Join(inner, "pods", "api", "src")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{outer, inner} {
		if err := os.WriteFile(filepath.Join(d, FileName), []byte("name: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string]string{outer: outer, inner: inner, deep: inner, filepath.Join(inner, "pods"): inner} {
		if got, err := Find(dir); got != want || err != nil {
			t.Errorf("Find(%s) = %q, %v; want %q", dir, got, err, want)
		}
	}
	abs, _ := filepath.Abs("testdata/valid-minimal")
	if got, err := Find("testdata/valid-minimal"); got != abs || err != nil {
		t.Errorf("Find(relative) = %q, %v; want %q", got, err, abs)
	}
}

// With no kube32.yaml up to the root, the error wraps ErrNotFound and names
// the folder.
func TestFindNone(t *testing.T) {
	dir := t.TempDir()
	_, err := Find(dir)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), dir) {
		t.Errorf("Find(empty) = %v; want ErrNotFound naming %s", err, dir)
	}
}

// A kube32.yaml that is a folder is an error, not skipped.
func TestFindRefusesAFolderNamedKube32Yaml(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if _, err := Find(sub); err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Find under a kube32.yaml folder = %v", err)
	}
}
