package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
)

// installOptions are the options of `kube32 install`.
type installOptions struct {
	IO         IOStreams
	Kubeconfig string // the Kubernetes cluster's kubeconfig file
	Context    string // its context; "" = the current one
	DryRun     bool   // print what would be applied, touch nothing
	Output     string // with DryRun: "yaml" prints the objects, "" their names
}

func newInstallCommand(io IOStreams) *cobra.Command {
	opts := installOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "install --kubeconfig FILE",
		Short: "Install what kube32 nodes and kube32 ingress need on a Kubernetes cluster",
		Long: `Apply to a Kubernetes cluster what kube32 nodes and the kube32 Ingress
controller need: the StaticBundle CustomResourceDefinition, the RuntimeClass
and the IngressClass kube32, and the least RBAC of each component (its
ServiceAccount in namespace ` + abi.NamespaceSystem + `, ClusterRole and binding;
a node only asks with kube32-node for a certificate of its own, then acts
as system:node:<name>, with the reads of ClusterRole kube32-node-reader).
It uses server-side apply, so running it again changes nothing.
With --dry-run it prints what it would apply (-o yaml: the objects) and
touches nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Output != "" && opts.Output != "yaml" {
				return &usageError{fmt.Errorf("-o %s: want -o yaml", opts.Output)}
			}
			if opts.Output != "" && !opts.DryRun {
				return &usageError{fmt.Errorf("-o yaml prints what would be applied: use it with --dry-run")}
			}
			if opts.Kubeconfig == "" && !opts.DryRun {
				return &usageError{fmt.Errorf("--kubeconfig FILE is required: the kubeconfig of the Kubernetes cluster")}
			}
			return runInstall(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file of the Kubernetes cluster")
	f.StringVar(&opts.Context, "context", "", "context of the kubeconfig to use (default its current context)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print what would be applied and touch nothing")
	f.StringVarP(&opts.Output, "output", "o", "", "with --dry-run: yaml prints the objects")
	return cmd
}

// runInstall applies the objects, or prints them for a dry run.
func runInstall(ctx context.Context, opts installOptions) error {
	if opts.DryRun {
		if opts.Output == "yaml" {
			b, err := host.KubernetesInstallYAML()
			if err != nil {
				return err
			}
			_, err = opts.IO.Out.Write(b)
			return err
		}
		for _, name := range host.KubernetesInstallNames() {
			fmt.Fprintf(opts.IO.Out, "%s (dry run)\n", name)
		}
		return nil
	}
	cfg, err := host.KubernetesConfig(opts.Kubeconfig, opts.Context)
	if err != nil {
		return err
	}
	return host.InstallOnKubernetes(ctx, cfg, func(line string) { fmt.Fprintln(opts.IO.Out, line) })
}
