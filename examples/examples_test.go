// Package examples_test builds every example with `kube32 build` and serves
// it with `kube32 serve`, in-process on free loopback ports, and checks that
// it does what its README line says.
package examples_test

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// copyExamples copies the examples (all of them: demo uses echo's pod) to a
// temporary directory without build outputs or tests, so that building
// leaves the source tree alone, and returns the copy of name.
func copyExamples(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "examples")
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && d.Name() == "build":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, p), 0o755)
		case strings.HasSuffix(p, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, name)
}

// build runs `kube32 build dir` and fails the test unless it succeeds.
func build(t *testing.T, dir string) string {
	t.Helper()
	code, out := testserve.Run(t, "build", dir)
	if code != 0 {
		t.Fatalf("kube32 build %s: exit %d\n%s", dir, code, out)
	}
	return out
}

// serveC builds the C example name from a copy and serves it.
func serveC(t *testing.T, name string) *host.Cluster {
	t.Helper()
	testenv.Tool(t, "clang")
	dir := copyExamples(t, name)
	build(t, dir)
	return serve(t, dir)
}

// serve runs `kube32 serve dir` in-process on free ports until the test ends
// and returns the cluster once it is ready.
func serve(t *testing.T, dir string) *host.Cluster {
	t.Helper()
	c, _ := testserve.Serve(t, dir)
	return c
}

// fetch sends a request and returns the status, headers and body.
func fetch(t *testing.T, method, url, body string) (int, http.Header, string) {
	t.Helper()
	r := testhttp.Do(t, method, url, body)
	return r.Status, r.Header, r.Body
}
