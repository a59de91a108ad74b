package precompress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

func unbrotli(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("%s: not brotli: %v", path, err)
	}
	return string(plain)
}

func TestDirBrotliIsOptIn(t *testing.T) {
	dir := writeTree(t, map[string]string{"index.html": page})
	st, err := Dir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(listTree(t, dir), " "); got != "index.html index.html.gz" {
		t.Errorf("without brotli: tree %q, want no .br", got)
	}
	if st.Brotlied != 0 || st.BrotliBytes != st.GzipBytes {
		t.Errorf("without brotli: stats %+v, want no .br and brotli bytes = gzip bytes", st)
	}
}

func TestDirBrotliWritesSmallerBrBeside(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"index.html": page,
		"tiny.txt":   "a",  // neither gzip nor brotli is smaller
		"logo.png":   page, // already-compressed type: skipped
	})
	st, err := Dir(dir, Options{Brotli: true})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(listTree(t, dir), " ")
	if want := "index.html index.html.br index.html.gz logo.png tiny.txt"; got != want {
		t.Errorf("tree\n  %s\nwant\n  %s", got, want)
	}
	if plain := unbrotli(t, filepath.Join(dir, "index.html.br")); plain != page {
		t.Error("index.html.br does not decompress to index.html")
	}
	br, _ := os.Stat(filepath.Join(dir, "index.html.br"))
	gz, _ := os.Stat(filepath.Join(dir, "index.html.gz"))
	if br.Size() >= gz.Size() {
		t.Errorf(".br %d bytes, .gz %d: a .br is kept only when smaller than the .gz", br.Size(), gz.Size())
	}
	if st.Files != 3 || st.Gzipped != 1 || st.Brotlied != 1 || st.BrotliBytes >= st.GzipBytes {
		t.Errorf("stats %+v: want 3 files, 1 gzipped, 1 brotlied, brotli bytes below gzip bytes", st)
	}
	raw := int64(len(page)*2 + 1)
	if st.StoredBytes != raw+gz.Size() {
		t.Errorf("stored %d, want %d: .br files are not flashed, so not counted", st.StoredBytes, raw+gz.Size())
	}
}

func TestDirBrotliWithGzipOnly(t *testing.T) {
	// .br is always an extra variant: with gzipOnly the file is stored as
	// .gz (and .br), never as .br alone.
	dir := writeTree(t, map[string]string{"app.js": page})
	st, err := Dir(dir, Options{GzipOnly: true, Brotli: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(listTree(t, dir), " "), "app.js.br app.js.gz"; got != want {
		t.Errorf("tree %q, want %q", got, want)
	}
	if st.StoredBytes != st.GzipBytes || st.Brotlied != 1 {
		t.Errorf("stats %+v: stored should be the .gz only, and one .br", st)
	}
}

func TestDirKeepsAuthoredBrotli(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.js": page, "a.js.br": "mine"})
	st, err := Dir(dir, Options{Brotli: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.js.br")); string(b) != "mine" {
		t.Errorf("authored a.js.br overwritten: %q", b)
	}
	if st.Files != 1 || st.Brotlied != 1 || st.BrotliBytes != 4 {
		t.Errorf("stats %+v", st)
	}
}

func TestBrotliDeterministicAndRoundTrips(t *testing.T) {
	for _, in := range []string{"", "a", page, strings.Repeat(page, 100)} {
		a, err := Brotli([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Brotli([]byte(in))
		if !bytes.Equal(a, b) {
			t.Errorf("Brotli of %d bytes is not deterministic", len(in))
		}
		plain, err := io.ReadAll(brotli.NewReader(bytes.NewReader(a)))
		if err != nil || string(plain) != in {
			t.Errorf("Brotli of %d bytes does not round-trip: %v", len(in), err)
		}
	}
}

func TestIsVariant(t *testing.T) {
	have := map[string]bool{"a.js": true, "a.js.gz": true, "b.txt.gz": true, "c.br": true}
	exists := func(n string) bool { return have[n] }
	for name, want := range map[string]bool{
		"a.js.gz":  true,
		"a.js.br":  true,
		"b.txt.br": true, // the .br of a file stored only as .gz
		"b.txt.gz": false,
		"c.br":     false, // nothing beside it: a file of its own
		"a.js":     false,
	} {
		if got := IsVariant(name, exists); got != want {
			t.Errorf("IsVariant(%q) = %v, want %v", name, got, want)
		}
	}
}
