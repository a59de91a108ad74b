// Package examples_test builds every example with `kube32 build` and serves
// it with `kube32 serve`, in-process on free loopback ports, and checks that
// it does what its README line says.
package examples_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/host/cluster"
)

// cacheDir is wazero's compilation cache, shared by the tests of this package
// and across runs.
var cacheDir = filepath.Join(os.TempDir(), "kube32-examples-test-cache")

// syncBuffer is a bytes.Buffer that serve's goroutines may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

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
	var out syncBuffer
	code := cli.Run(context.Background(), []string{"build", dir}, cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
	if code != 0 {
		t.Fatalf("kube32 build %s: exit %d\n%s", dir, code, out.String())
	}
	return out.String()
}

// serve runs `kube32 serve dir` in-process on free ports until the test ends
// and returns the cluster once it is ready.
func serve(t *testing.T, dir string) *cluster.Cluster {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	ready := make(chan *cluster.Cluster, 1)
	opts := cli.ServeOptions{
		IO:       cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out},
		Dir:      dir,
		CacheDir: cacheDir,
		Serving:  func(c *cluster.Cluster) { ready <- c },
	}
	done := make(chan error, 1)
	go func() { done <- cli.RunServe(ctx, opts) }()
	select {
	case c := <-ready:
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve ended with %v", err)
			}
			if t.Failed() {
				t.Logf("serve output:\n%s", out)
			}
		})
		return c
	case err := <-done:
		cancel()
		t.Fatalf("serve failed: %v\noutput:\n%s", err, out)
	case <-time.After(3 * time.Minute):
		cancel()
		t.Fatalf("serve not ready after 3 minutes; output:\n%s", out)
	}
	return nil
}

// fetch sends a request and returns the status, headers and body.
func fetch(t *testing.T, method, url, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}
