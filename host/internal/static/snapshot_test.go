package static

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// "No request can read outside the bundle": a snapshot holds the bundle's
// regular files and directories, never what a symbolic link points to.
func TestSnapshotKeepsFilesAndLeavesLinksOut(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bundle", "js"), 0o755)
	os.WriteFile(filepath.Join(dir, "bundle", "index.html"), []byte("<h1>hi</h1>"), 0o644)
	os.WriteFile(filepath.Join(dir, "bundle", "js", "app.js"), []byte("go()"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "bundle", "leak.txt"))
	os.Symlink(dir, filepath.Join(dir, "bundle", "up"))

	root, err := os.OpenRoot(filepath.Join(dir, "bundle"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Snapshot(root.FS())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"index.html": "<h1>hi</h1>", "js/app.js": "go()"} {
		f, err := snap.Open(name)
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		data, _ := io.ReadAll(f)
		if string(data) != want {
			t.Errorf("%s = %q, want %q", name, data, want)
		}
	}
	for _, name := range []string{"leak.txt", "up/secret.txt", "up", "../secret.txt"} {
		if _, err := snap.Open(name); err == nil {
			t.Errorf("%s opened through the snapshot", name)
		}
	}
	if !IsFile(snap, "js/app.js") || IsFile(snap, "js") {
		t.Error("IsFile tells files from directories wrongly")
	}
	if info, err := fs.Stat(snap, "js"); err != nil || !info.IsDir() {
		t.Errorf("js: %v, %v", info, err)
	}
}
