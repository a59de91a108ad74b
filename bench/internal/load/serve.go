package load

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/cli"
)

// Serve runs `kube32 serve` with opts in-process until ctx ends and returns
// the cluster once it is ready, or why it could not start.
func Serve(ctx context.Context, opts cli.ServeOptions) (*host.Cluster, error) {
	ready := make(chan *host.Cluster, 1)
	errs := make(chan error, 1)
	opts.Serving = func(c *host.Cluster) { ready <- c }
	go func() { errs <- cli.RunServe(ctx, opts) }()
	select {
	case c := <-ready:
		return c, nil
	case err := <-errs:
		return nil, fmt.Errorf("kube32 serve: %v", err)
	}
}

// ServeFresh runs Serve as a measurement wants it: serve's output
// discarded and a build cache of its own, so that nothing an earlier run
// cached counts. stop ends serve and removes the cache.
func ServeFresh(opts cli.ServeOptions) (c *host.Cluster, stop func(), err error) {
	cacheDir, err := os.MkdirTemp("", "kube32-bench-cache")
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop = func() {
		cancel()
		os.RemoveAll(cacheDir)
	}
	opts.IO = cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard}
	opts.CacheDir = cacheDir
	if c, err = Serve(ctx, opts); err != nil {
		stop()
		return nil, nil, err
	}
	return c, stop, nil
}
