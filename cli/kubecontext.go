package cli

import (
	"fmt"

	"github.com/kube32/kube32/host"
)

// takeContext points serve's kubeconfig context at its API server, saying
// on stderr when it takes the context over from another running serve. The
// function it returns undoes that when serve stops.
func takeContext(opts serveOptions, c *host.Cluster) (release func(), err error) {
	entry := host.KubeconfigEntry{Context: opts.Context, Server: c.APITLSURL(), Token: opts.Token, CA: c.APICA()}
	entry.ClientCert, entry.ClientKey = c.APIClientCert()
	claim, err := host.TakeKubeconfig(opts.Kubeconfig, entry)
	if err != nil {
		return nil, err
	}
	if claim.Replaced() != "" {
		fmt.Fprintf(opts.IO.ErrOut, "replacing context %s of the serve at %s; use --context to keep both\n", entry.Name(), claim.Replaced())
	}
	fmt.Fprintf(opts.IO.Out, "  kubectl  kubectl --context %s get pods  (context %q in %s)\n", entry.Name(), entry.Name(), opts.Kubeconfig)
	return func() {
		if err := claim.Release(); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "context %s: %v\n", entry.Name(), err)
		}
	}, nil
}
