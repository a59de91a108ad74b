package load

import (
	"context"
	"fmt"

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
