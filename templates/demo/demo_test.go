package demo_test

import (
	"archive/zip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/templates/demo"
	"github.com/kube32/kube32/templates/demo/internal/snapshot"
)

// The embedded demo must be what examples/demo builds to today.
func TestEmbeddedDemoIsUpToDate(t *testing.T) {
	testenv.Tool(t, "clang")
	examples := filepath.Join(t.TempDir(), "examples")
	for _, dir := range []string{"demo", "echo"} {
		if err := os.CopyFS(filepath.Join(examples, dir), os.DirFS(filepath.Join("..", "..", "examples", dir))); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(examples, "demo", "build"))
	want, err := snapshot.Files(context.Background(), filepath.Join(examples, "demo"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(snapshot.Archive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string][]byte{}
	err = fs.WalkDir(zr, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got[p], err = fs.ReadFile(zr, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range want {
		if string(got[p]) != string(data) {
			t.Errorf("%s is stale: run `go generate ./templates/demo`", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is no longer built: run `go generate ./templates/demo`", p)
		}
	}
}

func TestDemoManifestsDecode(t *testing.T) {
	objs, err := demo.Manifests()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Kind()]++
	}
	if kinds["Pod"] != 1 || kinds["Service"] != 1 || kinds["Ingress"] != 2 || kinds["StaticBundle"] != 1 {
		t.Fatalf("demo objects by kind: %v", kinds)
	}
	if _, err := fs.Stat(demo.Images(), "firmware/images/wasm/echo.wasm"); err != nil {
		t.Fatal(err)
	}
}
