package cli

import (
	"cmp"
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi"
)

// nodeOptions are the options of `kube32 node`.
type nodeOptions struct {
	IO             IOStreams
	Join           string // the control plane's API server, http://HOST:PORT
	Token          string // the cluster token; "" when the API server needs none
	NodeIP         string // InternalIP, where the pod HTTP server listens
	PodPort        int
	Name           string // Node name; default kube32-node-<IP>
	Images         string // folder holding firmware/ and sd/
	HandlerTimeout time.Duration
	CacheDir       string // --cache-dir, as serve's
	// LeaseRenewInterval is how often the node renews its Lease.
	LeaseRenewInterval time.Duration
	// DefaultMemoryLimit and MaxConnections are serve's flags of the same
	// names, for this node.
	DefaultMemoryLimit string
	MaxConnections     int
	// Board is the board profile whose budgets the node applies, as serve
	// --board does for its nodes; "" for none.
	Board string
	// BoardClock and SlowCallback are serve's (--board-clock,
	// --slow-callback).
	BoardClock   bool
	SlowCallback time.Duration
	// Kubeconfig and Context, instead of Join, make this a node of a
	// Kubernetes cluster (docs/kubernetes.md); KubeletPort is its kubelet
	// API's port, ClientCAFile the CAs of that API's client certificates
	// ("" for the kubeconfig's cluster CA), EgressCA as serve's.
	Kubeconfig, Context string
	KubeletPort         int
	ClientCAFile        string
	EgressCA            string
	// CertDir keeps the node's client certificate on the cluster (""
	// for the user config folder's kube32/nodes/<name>);
	// HostnameOverride is its Node's Hostname address, as a kubelet's
	// --hostname-override (docs/kubernetes.md).
	CertDir, HostnameOverride string
}

func newNodeCommand(io IOStreams) *cobra.Command {
	opts := nodeOptions{IO: io}
	var tokenFile string
	cmd := &cobra.Command{
		Use:   "node (--join http://HOST:PORT | --kubeconfig FILE)",
		Short: "Run a node that joins a running kube32 serve, or a Kubernetes cluster",
		Long: `Run a worker node in this process: it registers its Node with the control
plane's API server (the one kube32 serve runs), runs the pods the scheduler
binds to it and serves them on its pod HTTP server, talking to the control
plane only over HTTP, as board workers do.

With --kubeconfig instead of --join, the node joins a Kubernetes cluster: it
runs the pods of runtime class kube32 bound to it and serves the kubelet API
(logs, port-forward, metrics) on --kubelet-port (docs/kubernetes.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case opts.Join == "" && opts.Kubeconfig == "":
				return &usageError{fmt.Errorf("--join http://HOST:PORT (a kube32 control plane) or --kubeconfig FILE (a Kubernetes cluster) is required")}
			case opts.Join != "" && opts.Kubeconfig != "":
				return &usageError{fmt.Errorf("--join and --kubeconfig: give one (a kube32 control plane, or a Kubernetes cluster)")}
			}
			if opts.Kubeconfig == "" {
				for _, name := range []string{"context", "kubelet-port", "client-ca-file", "egress-ca", "cert-dir", "hostname-override"} {
					if cmd.Flags().Changed(name) {
						return &usageError{fmt.Errorf("--%s needs --kubeconfig: it is for a node of a Kubernetes cluster", name)}
					}
				}
			}
			var err error
			if opts.Token, err = resolveToken(opts.Token, tokenFile); err != nil {
				return err
			}
			return runNode(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Join, "join", "", "the control plane's API server, http://HOST:PORT")
	f.StringVar(&opts.NodeIP, "node-ip", "127.0.0.2", "this node's InternalIP; its pod HTTP server listens there")
	f.StringVar(&opts.Name, "name", "", "the Node's name (default kube32-node-<node-ip>)")
	f.StringVar(&opts.Images, "images", "build", "folder holding the firmware/ and sd/ image trees the pods run from")
	durationFlag(f, &opts.LeaseRenewInterval, "lease-renew-interval", abi.NodeLeaseRenewInterval, "how often the node renews its Lease (docs/nodes.md)")
	nodeFlags{
		token: &opts.Token, tokenFile: &tokenFile, tokenUsage: "the cluster token (the API server's bearer token)",
		podPort: &opts.PodPort, handlerTimeout: &opts.HandlerTimeout,
		defaultMemoryLimit: &opts.DefaultMemoryLimit, maxConnections: &opts.MaxConnections,
	}.add(f)
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "join the Kubernetes cluster of this kubeconfig instead of a kube32 control plane (docs/kubernetes.md)")
	f.StringVar(&opts.Context, "context", "", "the kubeconfig context (default its current one)")
	portFlag(f, &opts.KubeletPort, "kubelet-port", 10250, "with --kubeconfig: port of the node's kubelet API (HTTPS), which the API server calls for logs, port-forward and metrics")
	f.StringVar(&opts.ClientCAFile, "client-ca-file", "", "with --kubeconfig: PEM file of the CAs that sign the kubelet API's client certificates (default the kubeconfig's cluster CA)")
	f.StringVar(&opts.EgressCA, "egress-ca", "", "with --kubeconfig: PEM file of CAs the pods' https:// calls trust besides the system's")
	f.StringVar(&opts.CertDir, "cert-dir", "", "with --kubeconfig: folder that keeps the node's client certificate on the cluster (default the user config folder's kube32/nodes/<name>)")
	f.StringVar(&opts.HostnameOverride, "hostname-override", "", "with --kubeconfig: the Node's Hostname address, which kube-apiserver dials before its InternalIP (default the machine's name when it resolves to --node-ip, else none)")
	addBoardTimeFlags(f, &opts.BoardClock, &opts.SlowCallback)
	f.Var(boardName{&opts.Board}, "board", "board profile whose budgets this node applies, as serve --board does ("+strings.Join(abi.BoardNames(), ", ")+"; see kube32 boards)")
	addCacheDirFlag(f, &opts.CacheDir)
	return cmd
}

// runNode runs a worker node until ctx ends.
func runNode(ctx context.Context, opts nodeOptions) error {
	defaultMemory, err := parseMemoryLimit(opts.DefaultMemoryLimit)
	if err != nil {
		return err
	}
	if err := checkImagesDir(opts.Images); err != nil {
		return err
	}
	images, err := confined(opts.Images)
	if err != nil {
		return err
	}
	if opts.Name == "" {
		opts.Name = "kube32-node-" + opts.NodeIP
	}
	board, err := abi.ChooseBoard(opts.Board)
	if err != nil {
		return err
	}
	if opts.BoardClock && board == nil {
		return &usageError{fmt.Errorf("--board-clock runs the pods on a board's clock: name the board with --board (%s)", strings.Join(abi.BoardNames(), ", "))}
	}
	cache, err := host.NewDiskCache(compilationCacheDir(opts.CacheDir))
	if err != nil {
		return fmt.Errorf("compilation cache: %w", err)
	}
	defer cache.Close(context.Background())
	logs := &podLogPrinter{out: opts.IO.ErrOut}
	k8s, err := kubernetesNode(opts)
	if err != nil {
		return err
	}
	joined := opts.Join
	if k8s != nil {
		joined = k8s.Config.Host
	}
	w, err := host.StartWorker(ctx, host.WorkerOptions{Kubernetes: k8s,
		Name: opts.Name, NodeIP: opts.NodeIP, PodPort: opts.PodPort, API: opts.Join, Token: opts.Token,
		Images: images, Cache: cache, ImageCache: imageCacheDir(opts.CacheDir), HandlerTimeout: opts.HandlerTimeout, PodLog: logs.print, LeaseRenewInterval: opts.LeaseRenewInterval,
		DefaultMemoryLimit: defaultMemory, MaxConnections: opts.MaxConnections, Board: board,
		BoardClock: opts.BoardClock, SlowCallback: opts.SlowCallback,
		Logf: logLines(opts.IO.ErrOut),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Node %s joined %s\n  pods     %s\n", opts.Name, joined, w.PodURL())
	if k8s != nil {
		fmt.Fprintf(opts.IO.Out, "  kubelet  %s\n", w.KubeletURL())
	}
	fmt.Fprintln(opts.IO.Out, "Press Ctrl-C to stop.")
	<-ctx.Done()
	fmt.Fprintln(opts.IO.Out, "Stopping.")
	return w.Close()
}

// kubernetesNode is what makes the node one of a Kubernetes cluster: nil
// under --join.
func kubernetesNode(opts nodeOptions) (*host.KubernetesOptions, error) {
	if opts.Kubeconfig == "" {
		return nil, nil
	}
	cfg, err := host.KubernetesConfig(opts.Kubeconfig, opts.Context)
	if err != nil {
		return nil, err
	}
	caFile, caData := opts.ClientCAFile, []byte(nil)
	if caFile == "" {
		caFile, caData = cfg.TLSClientConfig.CAFile, cfg.TLSClientConfig.CAData
	}
	if caData == nil && caFile != "" {
		if caData, err = os.ReadFile(caFile); err != nil {
			return nil, fmt.Errorf("client CA: %w", err)
		}
	}
	var cas *x509.CertPool
	if caData != nil {
		cas = x509.NewCertPool()
		if !cas.AppendCertsFromPEM(caData) {
			return nil, fmt.Errorf("client CA %s: no PEM certificate in it", cmp.Or(caFile, "of kubeconfig "+opts.Kubeconfig))
		}
	}
	certDir := opts.CertDir
	if certDir == "" {
		certDir = nodeCertDir(opts.Name)
	}
	return &host.KubernetesOptions{Config: cfg, KubeletPort: opts.KubeletPort, ClientCAs: cas, EgressCA: opts.EgressCA,
		CertDir: certDir, HostnameOverride: opts.HostnameOverride}, nil
}

// nodeCertDir is where a node keeps its client certificate by default:
// the user's config folder ($XDG_CONFIG_HOME/kube32/nodes/<name>,
// ~/.config/kube32/nodes/<name> on Linux), or none (in memory, a new
// certificate on each start) when there is no such folder.
func nodeCertDir(name string) string {
	base, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "kube32", "nodes", name)
}
