package testbuild

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestArchiveKeepsTheBuildButItsCache: the cached build directory comes
// back file for file, without build/.cache (stamps and SDK copies).
func TestArchiveKeepsTheBuildButItsCache(t *testing.T) {
	dir := testenv.Tree(t, map[string]string{
		"firmware/images/wasm/echo.wasm": "\x00asm\x01\x00\x00\x00",
		"firmware/web/site/index.html":   "<p>hi</p>",
		".cache/stamps/x.json":           "{}",
	})
	archive, err := tarDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !isTar(archive) {
		t.Fatal("the archive does not read as one")
	}
	out := filepath.Join(t.TempDir(), "build")
	if err := untar(archive, out); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"firmware/images/wasm/echo.wasm": "\x00asm\x01\x00\x00\x00", "firmware/web/site/index.html": "<p>hi</p>"} {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, ".cache")); !os.IsNotExist(err) {
		t.Errorf("build/.cache came back: %v", err)
	}
}

func TestATruncatedArchiveIsNoFixture(t *testing.T) {
	dir := testenv.Tree(t, map[string]string{"a.wasm": string(make([]byte, 3000))})
	archive, err := tarDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if isTar(archive[:1500]) {
		t.Error("half an archive was taken for a whole one")
	}
}
