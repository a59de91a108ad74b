package precompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

func writeTree(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, files)
	return dir
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	return out
}

var page = strings.Repeat("<p>hello kube32</p>\n", 200)

func TestDirWritesSmallerGzipBeside(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"index.html":    page,
		"js/app.js":     strings.Repeat("console.log(1);\n", 100),
		"tiny.txt":      "a",  // gzip would be larger
		"logo.png":      page, // already-compressed type: skipped even if it would shrink
		"favicon.woff2": "woff2",
	})
	st, err := Dir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(listTree(t, dir), " ")
	want := "favicon.woff2 index.html index.html.gz js/app.js js/app.js.gz logo.png tiny.txt"
	if got != want {
		t.Errorf("tree\n  %s\nwant\n  %s", got, want)
	}
	gz, _ := os.ReadFile(filepath.Join(dir, "index.html.gz"))
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); string(plain) != page {
		t.Error("index.html.gz does not decompress to index.html")
	}
	if st.Files != 5 || st.Gzipped != 2 {
		t.Errorf("stats %+v: want 5 files, 2 gzipped", st)
	}
	raw := int64(len(page)*2 + 1600 + 1 + 5)
	if st.RawBytes != raw || st.GzipBytes >= raw || st.StoredBytes <= raw {
		t.Errorf("stats %+v: raw should be %d, gzip below it, stored above it", st, raw)
	}
}

func TestDirGzipOnly(t *testing.T) {
	dir := writeTree(t, map[string]string{"index.html": page, "tiny.txt": "a", "logo.png": page})
	st, err := Dir(dir, Options{GzipOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(listTree(t, dir), " "), "index.html.gz logo.png tiny.txt"; got != want {
		t.Errorf("tree %q, want %q", got, want)
	}
	if st.StoredBytes != st.GzipBytes {
		t.Errorf("gzipOnly stats %+v: stored should equal gzip bytes", st)
	}
}

func TestDirKeepsAuthoredGzip(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.js": page, "a.js.gz": "mine"})
	st, err := Dir(dir, Options{GzipOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.js.gz")); string(b) != "mine" {
		t.Errorf("authored a.js.gz overwritten: %q", b)
	}
	if st.Files != 1 || st.GzipBytes != 4 {
		t.Errorf("stats %+v", st)
	}
}

func TestGzipDeterministic(t *testing.T) {
	a, _ := Gzip([]byte(page))
	b, _ := Gzip([]byte(page))
	if !bytes.Equal(a, b) {
		t.Error("Gzip is not deterministic")
	}
}
