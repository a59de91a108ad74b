package precompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// realText is a page of the repository's own docs: text as bundles hold it.
func realText(t *testing.T) (path string, data []byte) {
	t.Helper()
	path = filepath.Join("..", "..", "..", "docs", "design.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// gunzip decodes as net/http's clients do.
func gunzip(t *testing.T, gz []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("not a gzip: %v", err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("not a valid gzip: %v", err)
	}
	return plain
}

func TestBestGzipBeatsGzip9AndDecodes(t *testing.T) {
	testenv.Tools(t, "zopfli", "libdeflate-gzip")
	path, data := realText(t)
	best, plain, err := BestGzip(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if gz9, _ := Gzip(data); !bytes.Equal(plain, gz9) {
		t.Error("plain is not compress/gzip's best")
	}
	zopfli, err := exec.Command("zopfli", "--i15", "-c", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes: compress/gzip -9 %d, zopfli %d, best %d", len(data), len(plain), len(zopfli), len(best))
	if len(best) >= len(plain) || len(best) > len(zopfli) {
		t.Errorf("best %d bytes: want below compress/gzip's %d and at most zopfli's %d", len(best), len(plain), len(zopfli))
	}
	if !bytes.Equal(gunzip(t, best), data) {
		t.Error("the best gzip does not decode to the file")
	}
	if again, _, _ := BestGzip(path, data); !bytes.Equal(again, best) {
		t.Error("BestGzip is not deterministic")
	}
	if fp := GzipFingerprint(); fp == "" || fp != GzipFingerprint() {
		t.Errorf("GzipFingerprint %q: want the encoders, stable", fp)
	}
}

func TestDirBestGzipCountsBothSizes(t *testing.T) {
	testenv.Tools(t, "zopfli")
	_, data := realText(t)
	dir := writeTree(t, map[string]string{"index.html": string(data)})
	st, err := Dir(dir, Options{BestGzip: true})
	if err != nil {
		t.Fatal(err)
	}
	gz, err := os.ReadFile(filepath.Join(dir, "index.html.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gunzip(t, gz), data) {
		t.Error("index.html.gz does not decode to index.html")
	}
	if st.GzipBytes != int64(len(gz)) || st.PlainGzipBytes <= st.GzipBytes {
		t.Errorf("stats %+v: want gzip bytes %d, below the plain gzip's", st, len(gz))
	}
	if st, _ := Dir(writeTree(t, map[string]string{"a.html": page}), Options{}); st.PlainGzipBytes != 0 {
		t.Errorf("without BestGzip: plain gzip bytes %d, want 0", st.PlainGzipBytes)
	}
}

func TestBestGzipWithoutTools(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	path, data := realText(t)
	best, plain, err := BestGzip(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(best, plain) || HaveGzipTool() || GzipFingerprint() != "" {
		t.Error("without zopfli and libdeflate-gzip, BestGzip should be compress/gzip's and name no encoder")
	}
}

func TestBestGzipRefusesABrokenEncoder(t *testing.T) {
	bin := t.TempDir()
	// A "zopfli" that writes a gzip of something else.
	if err := os.WriteFile(filepath.Join(bin, "zopfli"), []byte("#!/bin/sh\necho other | gzip -c\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gzipTool := testenv.Tool(t, "gzip")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+filepath.Dir(gzipTool))
	path, data := realText(t)
	if _, _, err := BestGzip(path, data); err == nil {
		t.Error("a gzip that decodes to other bytes was accepted")
	}
}
