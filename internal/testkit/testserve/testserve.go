// Package testserve runs `kube32` commands in-process for tests: serve on
// free loopback ports until the test ends, and one-shot commands with their
// output captured.
package testserve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"

	"github.com/kube32/kube32/cli"
)

// Output is what serve's goroutines write, shared safely with the test.
type Output = testenv.Buffer

// CacheDir is the wazero compilation cache the tests share, across runs too.
var CacheDir = filepath.Join(os.TempDir(), "kube32-test-cache")

// Serve runs `kube32 serve` with opts (ports 0 pick free ones) until the test
// ends and returns the cluster once it is ready, with serve's output.
func Serve(t testing.TB, opts cli.ServeOptions) (*host.Cluster, *Output) {
	t.Helper()
	c, out, _ := Start(t, opts)
	return c, out
}

// Start is Serve that also returns a function stopping serve before the
// test ends (it is called at the end if not before; calling it again does
// nothing).
func Start(t testing.TB, opts cli.ServeOptions) (*host.Cluster, *Output, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &Output{}
	opts.IO = cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out}
	if opts.CacheDir == "" {
		opts.CacheDir = CacheDir
	}
	ready := make(chan *host.Cluster, 1)
	opts.Serving = func(c *host.Cluster) { ready <- c }
	done := make(chan error, 1)
	go func() { done <- cli.RunServe(ctx, opts) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve ended with %v\noutput:\n%s", err, out)
			} else if t.Failed() {
				t.Logf("serve output:\n%s", out)
			}
		})
	}
	select {
	case c := <-ready:
		t.Cleanup(stop)
		return c, out, stop
	case err := <-done:
		cancel()
		t.Fatalf("serve failed: %v\noutput:\n%s", err, out)
	case <-time.After(3 * time.Minute):
		cancel()
		t.Fatalf("serve not ready after 3 minutes; output:\n%s", out)
	}
	return nil, nil, nil
}

// Run runs a kube32 command to its end and returns its exit code and output.
func Run(t testing.TB, args ...string) (int, string) {
	t.Helper()
	out := &Output{}
	code := cli.Run(context.Background(), args, cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out})
	return code, out.String()
}
