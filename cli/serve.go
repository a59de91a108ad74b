package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kube32/kube32/bundler"
	"github.com/kube32/kube32/host"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/cli/internal/watch"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/templates/demo"
)

// serveOptions are the options of `kube32 serve`.
type serveOptions struct {
	IO             IOStreams
	Dir            string   // project directory; "" = found from the current folder up, or the demo when there is none
	Images         string   // a folder holding firmware/ and sd/; default the project's build/
	Files          []string // manifests applied after the project's
	IngressPort    int
	PodPort        int
	APIPort        int
	HandlerTimeout time.Duration
	CacheDir       string // --cache-dir: wazero's cache, and the pulled images in its oci/; "" = the user cache folder's kube32/
	Token          string // bearer token the API server requires; "" = none
	// AcceptHosts are the host names (regular expressions separated by
	// commas) the API ports answer without a token besides loopback and
	// localhost; with a token every Host is answered.
	AcceptHosts    string
	Nodes          int    // cluster size: the control plane plus Nodes-1 workers in this process
	EgressCA       string // PEM file of roots trusted for https:// calls besides the system's; "" = none
	Uplink         string // the control plane's uplink at start: "up" ("" too) or "down"
	MaxConnections int    // open connections of every port at once; 0 = half the open-file limit, at most 4096
	// Kubeconfig is the kubeconfig file that gets the kube32 context; ""
	// writes none (the command always sets it: --kubeconfig, $KUBECONFIG
	// or ~/.kube/config).
	Kubeconfig string
	Context    string // the name of the kubeconfig context, cluster and user; "" = host.KubeconfigName
	// DefaultMemoryLimit is the memory cap, a Kubernetes quantity, of a
	// container without resources.limits.memory; "" = host.DefaultMemoryLimit.
	DefaultMemoryLimit string
	// Watch rebuilds and swaps into the running cluster whatever an edit
	// of the project changes (serve --watch; cli/internal/watch).
	Watch bool
	Board string // a profile of abi.Boards; "" = kube32.yaml's board:
	// BoardClock runs callbacks on the board's clock (--board-clock);
	// SlowCallback is the board time past which a callback is logged.
	BoardClock   bool
	SlowCallback time.Duration
	// APITLSPort serves the API over HTTPS too, the endpoint the kubeconfig
	// context names; CertDir keeps its CA and certificate (--cert-dir; ""
	// = made for this run only; the command's default is the user config
	// folder's kube32/pki).
	APITLSPort int
	CertDir    string

	// settled, when set with Watch, is called after each edit has been
	// rebuilt and swapped in, or found to change nothing served (test
	// --watch runs the tests again then).
	settled func()
}

func newServeCommand(io IOStreams) *cobra.Command {
	opts := serveOptions{IO: io}
	var kubeconfigFlag, tokenFile string
	cmd := &cobra.Command{
		Use:   "serve [DIR]",
		Short: "Run the app locally on the full kube32 runtime",
		Long: `Run the kube32 runtime locally: the API server, the Ingress controller and
a node whose pods run under wazero, as the boards run them.

In a project (DIR, or else the nearest folder holding a kube32.yaml from the
current one up) serve builds what is stale, applies the project's manifests
and those given with -f, and starts the pods.
With --images it serves prebuilt image trees instead, without a project.
With neither, it serves a built-in demo.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = argDir(args)
			var err error
			if opts.Token, err = resolveToken(opts.Token, tokenFile); err != nil {
				return err
			}
			if opts.Context == "" {
				return &usageError{fmt.Errorf("--context: want the name of a kubeconfig context")}
			}
			opts.Kubeconfig = host.KubeconfigPath(kubeconfigFlag)
			if opts.CertDir == "" {
				opts.CertDir = certDir()
			}
			return runServe(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	portFlag(f, &opts.IngressPort, "ingress-port", 8080, "port of the Ingress controller (80 on the boards)")
	portFlag(f, &opts.APIPort, "api-port", 6443, "port of the Kubernetes API server over plain HTTP (the nodes')")
	portFlag(f, &opts.APITLSPort, "api-tls-port", 6444, "port of the Kubernetes API server over HTTPS (kubectl --context kube32)")
	addClusterFlags(f, &opts)
	f.StringVar(&opts.EgressCA, "egress-ca", "", "PEM file of CA certificates trusted for pods' https:// calls, besides the system's")
	f.StringVar(&opts.Uplink, "uplink", "up", "the control plane's uplink at start, up or down (hosts outside unreachable); change it with kube32 uplink")
	f.StringVar(&kubeconfigFlag, "kubeconfig", "", "kubeconfig file to add the kube32 context to (default $KUBECONFIG or ~/.kube/config)")
	f.StringVar(&opts.Context, "context", host.KubeconfigName, "name of the kubeconfig context (and its cluster and user) serve writes, so that two serves coexist")
	f.BoolVarP(&opts.Watch, "watch", "w", false, "rebuild on every edit of the project and swap the result into the running cluster")
	f.StringVar(&opts.Images, "images", "", "serve prebuilt images from this folder (holding firmware/ and sd/)")
	f.StringVar(&opts.AcceptHosts, "accept-hosts", "", "without --token: host names the API ports answer besides loopback and localhost, as regular expressions separated by commas (as kubectl proxy's)")
	nodeFlags{
		token: &opts.Token, tokenFile: &tokenFile, tokenUsage: "bearer token the API server requires (the cluster token); default none",
		podPort: &opts.PodPort, handlerTimeout: &opts.HandlerTimeout,
		defaultMemoryLimit: &opts.DefaultMemoryLimit, maxConnections: &opts.MaxConnections,
	}.add(f)
	addBoardFlag(f, &opts.Board)
	addBoardTimeFlags(f, &opts.BoardClock, &opts.SlowCallback)
	f.StringVar(&opts.CertDir, "cert-dir", "", "folder that keeps the HTTPS API's CA and certificate (default the user config folder's kube32/pki)")
	addCacheDirFlag(f, &opts.CacheDir)
	return cmd
}

// addCacheDirFlag adds --cache-dir, where a node keeps what it compiled
// and pulled (docs/oci.md), alike for serve and node.
func addCacheDirFlag(f *pflag.FlagSet, dir *string) {
	f.StringVar(dir, "cache-dir", "", "folder of the compiled modules' cache, and in its oci/ of the pulled images (default the user cache folder's kube32/wazero and kube32/oci)")
}

// addClusterFlags adds the flags that shape the cluster alike for serve
// and test: --nodes and -f.
func addClusterFlags(f *pflag.FlagSet, opts *serveOptions) {
	intFlag(f, &opts.Nodes, "nodes", 1, 1, host.MaxNodes, "cluster size: the control plane plus N-1 workers on 127.0.0.2, 127.0.0.3, …")
	f.StringArrayVarP(&opts.Files, "filename", "f", nil, "manifest file to apply too (repeatable)")
}

// runServe runs the cluster until ctx ends.
func runServe(ctx context.Context, opts serveOptions) error {
	c, src, stop, err := startCluster(ctx, opts)
	if err != nil {
		return err
	}
	defer stop()

	fmt.Fprintf(opts.IO.Out, "Serving %s\n", src.what)
	fmt.Fprintf(opts.IO.Out, "  ingress  %s/\n  api      %s  (GET /readyz)\n  api-tls  %s  (%s)\n  ui       %s%s\n  pods     %s\n",
		c.IngressURL(), c.APIURL(), c.APITLSURL(), caWhere(c), uiURL(c, opts.Token), abi.UIPath, c.PodURL())
	for i, w := range c.Workers() {
		fmt.Fprintf(opts.IO.Out, "  worker   %s  pods %s\n", host.WorkerName(i+1), w.PodURL())
	}
	if opts.Kubeconfig != "" {
		release, err := takeContext(opts, c)
		if err != nil {
			return err
		}
		defer release()
	}
	readyCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = c.WaitReady(readyCtx)
	cancel()
	if err != nil && ctx.Err() == nil {
		return err
	}
	printPods(opts.IO, c)
	for _, url := range src.tryURLs {
		fmt.Fprintf(opts.IO.Out, "Try: curl %s%s\n", c.IngressURL(), url)
	}
	if src.watcher != nil {
		done := make(chan struct{})
		go func() { defer close(done); src.watcher.Run(ctx, c, src.built) }()
		defer func() { <-done }() // before the cluster closes
		fmt.Fprintf(opts.IO.Out, "Watching %s: each edit is rebuilt and swapped in.\n", src.project)
	}
	fmt.Fprintln(opts.IO.Out, "Press Ctrl-C to stop.")
	<-ctx.Done()
	fmt.Fprintln(opts.IO.Out, "Stopping.")
	return nil
}

// startCluster builds what opts name (a project, images or the demo) and
// starts its cluster in-process: the one way serve and test (cli/test.go)
// start a cluster. The cluster is not ready yet; stop closes it, then what
// it used.
func startCluster(ctx context.Context, opts serveOptions) (_ *host.Cluster, _ source, _ func(), err error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	if opts.Uplink != "" && opts.Uplink != "up" && opts.Uplink != "down" {
		return nil, source{}, nil, &usageError{fmt.Errorf("--uplink %q: want up or down", opts.Uplink)}
	}
	defaultMemory, err := parseMemoryLimit(opts.DefaultMemoryLimit)
	if err != nil {
		return nil, source{}, nil, err
	}
	src, err := serveSource(ctx, opts)
	if err != nil {
		return nil, source{}, nil, err
	}
	if src.watcher != nil {
		closers = append(closers, src.watcher.Close) // on the way out before Run took it
	}
	if opts.Watch && src.project == "" {
		return nil, source{}, nil, &usageError{fmt.Errorf("--watch: serving %s, not a project: nothing to watch", src.what)}
	}
	extra, err := manifest.DecodeFiles(opts.Files)
	if err != nil {
		return nil, source{}, nil, err
	}
	printManifestWarnings(opts.IO.ErrOut, extra)
	cache, err := host.NewDiskCache(compilationCacheDir(opts.CacheDir))
	if err != nil {
		return nil, source{}, nil, fmt.Errorf("compilation cache: %w", err)
	}
	closers = append(closers, func() { cache.Close(context.Background()) })

	board, err := abi.ChooseBoard(opts.Board, src.board) // --board, else board:
	if err != nil {
		return nil, source{}, nil, err
	}
	if opts.BoardClock && board == nil {
		return nil, source{}, nil, &usageError{fmt.Errorf("--board-clock runs the pods on a board's clock: name the board with --board (%s) or kube32.yaml's board: field",
			strings.Join(abi.BoardNames(), ", "))}
	}
	logs := &podLogPrinter{out: opts.IO.ErrOut}
	c, err := host.Start(ctx, host.Options{
		Images: src.images, Objects: append(src.objects, extra...),
		IngressPort: opts.IngressPort, PodPort: opts.PodPort, APIPort: opts.APIPort, APITLSPort: opts.APITLSPort, CertDir: opts.CertDir,
		Cache: cache, ImageCache: imageCacheDir(opts.CacheDir), HandlerTimeout: opts.HandlerTimeout, DefaultMemoryLimit: defaultMemory, Token: opts.Token, AcceptHosts: opts.AcceptHosts, Nodes: opts.Nodes,
		EgressCA: opts.EgressCA, UplinkDown: opts.Uplink == "down", MaxConnections: opts.MaxConnections, PodLog: logs.print, Board: board,
		BoardClock: opts.BoardClock, SlowCallback: opts.SlowCallback,
		Logf: logLines(opts.IO.ErrOut),
	})
	if err != nil {
		return nil, source{}, nil, err
	}
	closers = append(closers, func() { c.Close() })
	return c, src, closeAll, nil
}

// uiURL is where the web view is: with a token on the HTTPS port only,
// where its session cookie is Secure (docs/ui.md).
func uiURL(c *host.Cluster, token string) string {
	if token != "" {
		return c.APITLSURL()
	}
	return c.APIURL()
}

// source is what serve runs: image trees and manifests.
type source struct {
	what    string
	project string // the project's directory; "" when serving images or the demo
	images  fs.FS
	objects []manifest.Object
	tryURLs []string
	board   string // kube32.yaml's board: ("" for none)
	// watcher (serve --watch) has watched the project since before built,
	// the build the cluster starts with, was made.
	watcher *watch.Watcher
	built   *bundler.BuildResult
}

// serveSource picks what to serve: prebuilt images, a project (built first
// when stale), or the built-in demo.
func serveSource(ctx context.Context, opts serveOptions) (source, error) {
	var dir string
	var err error
	if opts.Images == "" {
		dir, err = projectDir(opts.Dir, opts.IO.ErrOut)
	}
	switch {
	case opts.Images != "":
		if err := checkImagesDir(opts.Images); err != nil {
			return source{}, err
		}
		images, err := confined(opts.Images)
		if err != nil {
			return source{}, err
		}
		src := source{what: "images from " + opts.Images, images: images}
		if opts.Dir != "" {
			p, err := bundler.LoadProject(opts.Dir)
			if err != nil {
				return source{}, err
			}
			if src.objects, err = manifest.DecodeFiles(p.ManifestPaths()); err != nil {
				return source{}, err
			}
			printManifestWarnings(opts.IO.ErrOut, src.objects) // no build reads them here to say them
			src.board = p.Board()
		}
		return src, nil
	case errors.Is(err, bundler.ErrNoProject):
		objs, err := demo.Manifests()
		if err != nil {
			return source{}, err
		}
		return source{what: "the built-in demo (no kube32.yaml in this folder or any parent)", images: demo.Images(), objects: objs,
			tryURLs: []string{"/", "/echo/hello -d 'hi'", "/echo/events -N   (Server-Sent Events)"}}, nil
	case err != nil:
		return source{}, err
	default:
		return projectSource(ctx, opts, dir)
	}
}

// projectSource builds the project in dir for serve. With --watch the
// project is watched from before the build on, so that no edit falls
// between the build and the watch (docs/serve.md).
func projectSource(ctx context.Context, opts serveOptions, dir string) (source, error) {
	var w *watch.Watcher
	if opts.Watch {
		var err error
		if w, err = watch.New(watch.Options{Dir: dir, Files: opts.Files, Board: opts.Board, Log: opts.IO.ErrOut, Settled: opts.settled}); err != nil {
			return source{}, err
		}
	}
	src, err := buildProject(ctx, opts, dir)
	if err != nil {
		if w != nil {
			w.Close()
		}
		return source{}, err
	}
	src.watcher = w
	return src, nil
}

// buildProject builds the project in dir, which reads its manifests.
func buildProject(ctx context.Context, opts serveOptions, dir string) (source, error) {
	// serve's standard output is its URLs: the build's report, size table
	// included, goes to standard error.
	result, err := runBuild(ctx, opts.IO, dir, false, bundler.BuildOptions{Board: opts.Board})
	if err != nil {
		return source{}, err
	}
	printBuildTable(opts.IO.ErrOut, result, opts.IO.IsStderrTTY())
	if result.Board != "" {
		// What kube32 build's fit report would end with: serve runs a
		// build that does not fit no further.
		fmt.Fprintf(opts.IO.ErrOut, "fit for board %s: ok\n", result.Board)
	}
	// The build loaded the project and its manifests: serve runs what it
	// built from.
	p := result.Project
	images, err := confined(result.BuildDir)
	if err != nil {
		return source{}, err
	}
	return source{what: "app " + p.Name() + " from " + p.Dir(), project: p.Dir(), images: images, objects: result.Objects, board: p.Board(), built: result}, nil
}

// printManifestWarnings prints what of the objects of manifests kube32
// accepts and does not do, as kube32 build prints them for a project's
// manifests: "warning: app.yaml: document 2 (NetworkPolicy default/web): …".
func printManifestWarnings(w io.Writer, objs []manifest.Object) {
	for _, warning := range manifest.Warnings(objs) {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
}

// confined opens an image tree so that nothing served from it, not even
// through a symlink, can reach outside it.
func confined(dir string) (fs.FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return root.FS(), nil
}

func checkImagesDir(dir string) error {
	for _, sub := range []string{"firmware", "sd"} {
		if info, err := os.Stat(filepath.Join(dir, sub)); err == nil && info.IsDir() {
			return nil
		}
	}
	return fmt.Errorf("--images %s: holds neither firmware/ nor sd/ (point it at a build/ folder written by `kube32 build`)", dir)
}

// imageCacheDir is where a node keeps the OCI images it pulled, by digest
// (docs/oci.md): beside the compilation cache, or in --cache-dir's oci/.
func imageCacheDir(dir string) string {
	if dir != "" {
		return filepath.Join(dir, "oci")
	}
	return filepath.Join(filepath.Dir(compilationCacheDir("")), "oci")
}

func compilationCacheDir(dir string) string {
	if dir != "" {
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "kube32", "wazero")
}

// certDir is where serve keeps the API's CA and certificate: the user's
// config folder ($XDG_CONFIG_HOME/kube32/pki, ~/.config/kube32/pki on
// Linux), or none when there is no such folder.
func certDir() string {
	base, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "kube32", "pki")
}

// caWhere says where the CA of the HTTPS endpoint is.
func caWhere(c *host.Cluster) string {
	if c.APICAFile() == "" {
		return "CA made for this run"
	}
	return "CA " + c.APICAFile()
}

// printPods prints each pod's state once the cluster is ready, with the
// reason of those that failed.
func printPods(io IOStreams, c *host.Cluster) {
	pods := c.List("Pod", "")
	sort.Slice(pods, func(i, j int) bool { return pods[i].(*corev1.Pod).Name < pods[j].(*corev1.Pod).Name })
	for _, o := range pods {
		p := o.(*corev1.Pod)
		line := fmt.Sprintf("  pod %s/%s: %s", p.Namespace, p.Name, p.Status.Phase)
		if why := podProblem(p); why != "" {
			line += ": " + why
		}
		fmt.Fprintln(io.Out, line)
	}
}

func podProblem(p *corev1.Pod) string {
	if p.Status.Message != "" {
		return p.Status.Message
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Message
		}
	}
	return ""
}

// podLogPrinter prints pod log lines as "[namespace/name] text".
type podLogPrinter struct {
	mu  sync.Mutex
	out interface{ Write([]byte) (int, error) }
}

func (p *podLogPrinter) print(namespace, name string, line host.LogLine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// host.LogText again: the node's own lines about a pod may quote it too.
	fmt.Fprintf(p.out, "[%s/%s] %s\n", namespace, name, host.LogText(strings.TrimRight(line.Text, "\n")))
}
