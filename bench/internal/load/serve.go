package load

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testserve"

	"github.com/kube32/kube32/cli"
)

// Serve runs `kube32 serve args...` in-process on free loopback ports
// (testserve.ServeArgs, its folders in a temporary one, cacheDir for what
// it compiles and pulls) until ctx ends. It returns the cluster once serve
// says it runs, or why it could not start; done gets serve's exit code
// when it has ended and let go of its ports.
func Serve(ctx context.Context, ios cli.IOStreams, cacheDir string, args ...string) (_ *host.Cluster, done <-chan int, _ error) {
	tmp, err := os.MkdirTemp("", "kube32-bench-serve")
	if err != nil {
		return nil, nil, err
	}
	errs := &tail{w: ios.ErrOut}
	ios.ErrOut = errs
	ready, ended := testserve.Launch(ctx, ios, append(testserve.ServeArgs(tmp, cacheDir), args...)...)
	exit := make(chan int, 1)
	go func() {
		code := <-ended
		os.RemoveAll(tmp)
		exit <- code
	}()
	select {
	case s := <-ready:
		return s.Cluster, exit, nil
	case code := <-exit:
		return nil, nil, fmt.Errorf("kube32 serve exited with %d before it ran: %s", code, errs)
	}
}

// tail passes writes on to w and keeps the last KiB of them, where a
// command's error is.
type tail struct {
	w  io.Writer
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.b = append(t.b, p...)
	if len(t.b) > 1024 {
		t.b = t.b[len(t.b)-1024:]
	}
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// ServeFresh runs Serve as a measurement wants it: serve's output
// discarded and a build cache of its own, so that nothing an earlier run
// cached counts. stop ends serve and removes the cache.
func ServeFresh(args ...string) (c *host.Cluster, stop func(), err error) {
	cacheDir, err := os.MkdirTemp("", "kube32-bench-cache")
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop = func() {
		cancel()
		os.RemoveAll(cacheDir)
	}
	c, _, err = Serve(ctx, cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard}, cacheDir, args...)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return c, stop, nil
}
