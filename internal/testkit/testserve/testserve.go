// Package testserve runs `kube32` commands in-process for tests and
// benchmarks, through cli.Run with the arguments a user types: serve (and
// ingress) on free loopback ports until the test ends, with what they
// started (host.WithStartHooks), and one-shot commands with their output
// captured.
package testserve

import (
	"bytes"
	"context"
	"errors"
	"io"
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

// ServeArgs are the start of a serve command line, before the caller's
// own flags, which win over them (a later flag wins): free ports, folders
// of dir for the kubeconfig context and the API's certificates, so that no
// test or benchmark touches the user's, and cacheDir for what the nodes
// compile and pull.
func ServeArgs(dir, cacheDir string) []string {
	return []string{"serve", "--ingress-port", "0", "--api-port", "0", "--api-tls-port", "0", "--pod-port", "0",
		"--kubeconfig", filepath.Join(dir, "kubeconfig"), "--cert-dir", filepath.Join(dir, "pki"), "--cache-dir", cacheDir}
}

// Serve runs `kube32 serve args...` (after ServeArgs) until the test
// ends and returns the cluster once serve says it runs, with serve's
// output.
func Serve(t testing.TB, args ...string) (*host.Cluster, *Output) {
	t.Helper()
	c, out, _ := Start(t, args...)
	return c, out
}

// Start is Serve that also returns a function stopping serve before the
// test ends (it is called at the end if not before; calling it again does
// nothing).
func Start(t testing.TB, args ...string) (*host.Cluster, *Output, func()) {
	t.Helper()
	started, out, stop := run(t, "serve", append(ServeArgs(t.TempDir(), CacheDir), args...))
	return started.Cluster, out, stop
}

// Try runs `kube32 serve args...` (after ServeArgs) until it says it
// runs, then stops it, and returns nil; or, when serve ends before, its
// error as it printed it ("kube32: …", without the prefix).
func Try(t testing.TB, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &Output{}
	ready, done := Launch(ctx, cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out}, append(ServeArgs(t.TempDir(), CacheDir), args...)...)
	select {
	case <-ready:
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("serve exited with %d once stopped; output:\n%s", code, out)
		}
		return nil
	case code := <-done:
		if code == 0 {
			t.Fatalf("serve exited with 0 before it ran; output:\n%s", out)
		}
		said := out.String()
		if i := strings.LastIndex("\n"+said, "\nkube32: "); i >= 0 {
			said = said[i+len("kube32: "):]
		}
		return errors.New(strings.TrimSuffix(said, "\n"))
	}
}

// Ingress runs `kube32 ingress args...` on a free port of 127.0.0.1 until
// the test ends and returns its controller once it says it runs.
func Ingress(t testing.TB, args ...string) *host.KubernetesIngress {
	t.Helper()
	started, _, _ := run(t, "ingress", append([]string{"ingress", "--ip", "127.0.0.1", "--ingress-port", "0"}, args...))
	return started.KubernetesIngress
}

// run launches the command args until the test ends, failing the test when
// it does not run within 3 minutes or ends with an error.
func run(t testing.TB, what string, args []string) (Started, *Output, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &Output{}
	ready, done := Launch(ctx, cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out}, args...)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("%s exited with %d\noutput:\n%s", what, code, out)
			} else if t.Failed() {
				t.Logf("%s output:\n%s", what, out)
			}
		})
	}
	select {
	case s := <-ready:
		t.Cleanup(stop)
		return s, out, stop
	case code := <-done:
		cancel()
		t.Fatalf("%s exited with %d before it ran; output:\n%s", what, code, out)
	case <-time.After(3 * time.Minute):
		cancel()
		t.Fatalf("%s not running after 3 minutes; output:\n%s", what, out)
	}
	return Started{}, nil, nil
}

// Started is what a long-running command started: serve's cluster or
// ingress's controller.
type Started struct {
	Cluster           *host.Cluster
	KubernetesIngress *host.KubernetesIngress
}

// Launch runs `kube32 args...` in-process until ctx ends. ready gets what
// the command started once it says on its standard output that it runs
// ("Press Ctrl-C to stop.", which serve prints when its cluster is ready);
// done gets its exit code when it ends.
func Launch(ctx context.Context, ios cli.IOStreams, args ...string) (ready <-chan Started, done <-chan int) {
	var started Started
	var mu sync.Mutex
	ctx = host.WithStartHooks(ctx, host.StartHooks{
		Cluster:           func(c *host.Cluster) { mu.Lock(); started.Cluster = c; mu.Unlock() },
		KubernetesIngress: func(k *host.KubernetesIngress) { mu.Lock(); started.KubernetesIngress = k; mu.Unlock() },
	})
	readyc, donec := make(chan Started, 1), make(chan int, 1)
	running := &lineWatch{w: ios.Out, line: []byte("Press Ctrl-C to stop.\n"), seen: func() {
		mu.Lock()
		defer mu.Unlock()
		readyc <- started
	}}
	ios.Out = running
	go func() { donec <- cli.Run(ctx, args, ios) }()
	return readyc, donec
}

// lineWatch passes writes on to w and calls seen once they have held line.
type lineWatch struct {
	w    io.Writer
	line []byte
	seen func()

	mu      sync.Mutex
	written []byte // until line was seen
	done    bool
}

func (l *lineWatch) Write(p []byte) (int, error) {
	n, err := l.w.Write(p) // first: what seen wakes reads the line too
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.written = append(l.written, p...)
		if bytes.Contains(l.written, l.line) {
			l.done, l.written = true, nil
			l.seen()
		}
	}
	return n, err
}

// Run runs a kube32 command to its end and returns its exit code and output.
func Run(t testing.TB, args ...string) (int, string) {
	t.Helper()
	out := &Output{}
	code := cli.Run(context.Background(), args, cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out})
	return code, out.String()
}
