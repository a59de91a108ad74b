package cli

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/host"
)

// ingressOptions are the options of `kube32 ingress`.
type ingressOptions struct {
	IO          IOStreams
	Kubeconfig  string // the Kubernetes cluster's kubeconfig file
	Context     string // its context; "" = the current one
	IngressPort int
	IP          string // listens there; the address the Ingresses' status shows
	Images      string // folder holding firmware/ (StaticBundles); "" = none
	// MaxConnections is serve's flag of the same name, for this port.
	MaxConnections int
	// CacheDir is --cache-dir, as serve's: the StaticBundles pulled from
	// OCI registries are kept in its oci/ ("" = the user cache folder's).
	CacheDir string
}

func newIngressCommand(io IOStreams) *cobra.Command {
	opts := ingressOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "ingress --kubeconfig FILE --ingress-port PORT",
		Short: "Run the kube32 Ingress controller for a Kubernetes cluster",
		Long: `Run kube32's Ingress controller for the Ingresses of class kube32 of a
Kubernetes cluster (kube32 install creates the class): the controller of
kube32 serve, fed by a watch of the cluster's Ingresses, Services, kube32
pods, Nodes and StaticBundles. Service backends are proxied to the pods'
kube32 nodes; StaticBundles are served from --images. It writes its IP to
each routed Ingress's status.loadBalancer, and answers 503 until it has
listed the cluster's objects.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Kubeconfig == "" {
				return &usageError{fmt.Errorf("--kubeconfig FILE is required: the kubeconfig of the Kubernetes cluster")}
			}
			return runIngress(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file of the Kubernetes cluster")
	f.StringVar(&opts.Context, "context", "", "context of the kubeconfig to use (default its current context)")
	portFlag(f, &opts.IngressPort, "ingress-port", 8080, "port of the Ingress controller")
	f.StringVar(&opts.IP, "ip", "127.0.0.1", "address to listen on, written to the Ingresses' status.loadBalancer")
	f.StringVar(&opts.Images, "images", "", "folder holding firmware/ with the StaticBundles' files (a build/ of kube32 build)")
	intFlag(f, &opts.MaxConnections, "max-connections", 0, 0, math.MaxInt32, "connections open at once; at the cap the longest-idle keep-alive one is closed (default half the open-file limit, at most 4096)")
	f.StringVar(&opts.CacheDir, "cache-dir", "", "folder whose oci/ keeps the pulled StaticBundles, as serve's (default the user cache folder's kube32/oci)")
	return cmd
}

// runIngress runs the controller until ctx ends.
func runIngress(ctx context.Context, opts ingressOptions) error {
	var images fs.FS = noImages{}
	if opts.Images != "" {
		if err := checkImagesDir(opts.Images); err != nil {
			return err
		}
		var err error
		if images, err = confined(opts.Images); err != nil {
			return err
		}
	}
	cfg, err := host.KubernetesConfig(opts.Kubeconfig, opts.Context)
	if err != nil {
		return err
	}
	ki, err := host.StartKubernetesIngress(ctx, host.KubernetesIngressOptions{
		REST: cfg, IP: opts.IP, Port: opts.IngressPort, Images: images, MaxConnections: opts.MaxConnections,
		ImageCache: imageCacheDir(opts.CacheDir),
		Logf:       logLines(opts.IO.ErrOut),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Ingress controller for %s (IngressClass kube32)\n  ingress  %s\nPress Ctrl-C to stop.\n", cfg.Host, ki.URL())
	go reportSynced(ctx, opts, ki)
	<-ctx.Done()
	fmt.Fprintln(opts.IO.Out, "Stopping.")
	return ki.Close()
}

// reportSynced says on stderr when the controller starts routing.
func reportSynced(ctx context.Context, opts ingressOptions, ki *host.KubernetesIngress) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !ki.Synced() {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
	fmt.Fprintln(opts.IO.ErrOut, "ingress: listed the cluster's objects; routing")
}

// noImages is the image tree of an ingress without --images: no
// StaticBundle is found (503, naming it).
type noImages struct{}

func (noImages) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
