package treehash

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

func hash(t *testing.T, dir string, opts Options) string {
	h := sha256.New()
	if err := Write(h, dir, opts); err != nil {
		t.Fatal(err)
	}
	return string(h.Sum(nil))
}

func TestHashSeesContentsNamesAndHonoursOptions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	write("a.c", "1")
	write(".git/HEAD", "x")
	write("build/out", "x")
	opts := Options{SkipHidden: true, Exclude: []string{filepath.Join(dir, "build")}}
	base := hash(t, dir, opts)
	write(".git/HEAD", "y")
	write("build/out", "y")
	if hash(t, dir, opts) != base {
		t.Error("hidden or excluded directory changed the hash")
	}
	if hash(t, dir, Options{}) == hash(t, dir, opts) {
		t.Error("options ignored")
	}
	write("a.c", "2")
	if hash(t, dir, opts) == base {
		t.Error("contents ignored")
	}
	os.Rename(filepath.Join(dir, "a.c"), filepath.Join(dir, "b.c"))
	write("b.c", "1")
	if hash(t, dir, opts) == base {
		t.Error("names ignored")
	}
}
