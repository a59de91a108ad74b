package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi/images"
)

// TestFixtures loads every testdata/valid-* project (must load) and every
// testdata/invalid-* project (must fail with the message in its error.txt).
func TestFixtures(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			p, err := Load(dir)
			switch {
			case strings.HasPrefix(name, "valid-"):
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if p.Name == "" {
					t.Error("no name")
				}
			case strings.HasPrefix(name, "invalid-"):
				want, rerr := os.ReadFile(filepath.Join(dir, "error.txt"))
				if rerr != nil {
					t.Fatal(rerr)
				}
				if err == nil {
					t.Fatalf("Load succeeded, want error containing %q", strings.TrimSpace(string(want)))
				}
				if !strings.Contains(err.Error(), strings.TrimSpace(string(want))) {
					t.Errorf("error\n  %v\nwant it to contain\n  %s", err, want)
				}
			default:
				t.Fatalf("fixture %s must be named valid-* or invalid-*", name)
			}
		})
	}
}

func TestDefaultsAndPaths(t *testing.T) {
	p, err := Load("testdata/valid-full")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p.Dir) {
		t.Errorf("Dir %q is not absolute", p.Dir)
	}
	api, thumb := p.Pods[0], p.Pods[1]
	if api.Image != "wasm://embedded/api" || api.Parsed.Storage != images.Firmware {
		t.Errorf("default image = %q (%v), want wasm://embedded/api on firmware", api.Image, api.Parsed.Storage)
	}
	if thumb.Parsed.Storage != images.SD || thumb.Parsed.Name != "thumb" {
		t.Errorf("thumb image parsed as %+v", thumb.Parsed)
	}
	if got, want := p.Path(thumb.Source), filepath.Join(p.Dir, "pods", "thumb"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
	if got, want := p.CacheDir(), filepath.Join(p.Dir, "build", ".cache"); got != want {
		t.Errorf("CacheDir = %q, want %q", got, want)
	}
	if !p.Bundles[0].GzipOnly {
		t.Error("gzipOnly not decoded")
	}
	if !p.Bundles[0].Brotli {
		t.Error("brotli not decoded")
	}
	if p.Board != "esp32s3" {
		t.Errorf("Board = %q, want esp32s3", p.Board)
	}
	if got := p.ManifestPaths(); len(got) != 1 || got[0] != filepath.Join(p.Dir, "app.yaml") {
		t.Errorf("ManifestPaths = %v", got)
	}
}

func TestLoadNoProject(t *testing.T) {
	_, err := Load(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no kube32.yaml here") {
		t.Errorf("Load(empty dir) = %v", err)
	}
}

func TestAllErrorsReported(t *testing.T) {
	dir := t.TempDir()
	data := []byte("name: a\npods:\n  - name: x\n    language: java\n    source: nope\n")
	_, err := parse(dir, data)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"pods[0].language", "pods[0].source"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}
