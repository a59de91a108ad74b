// Package cluster assembles what `kube32 serve` runs: the object store, the
// control plane's API server, scheduler, Ingress controller and kubelet, each
// on a real loopback address, as the boards run them.
package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/channel"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/ingress"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/kubelet"
	"github.com/kube32/kube32/host/internal/nodelifecycle"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/scheduler"
	"github.com/kube32/kube32/host/internal/servingcert"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/host/internal/webview"
	"github.com/kube32/kube32/internal/oci"
)

// MaxNodes is the largest cluster: node i has InternalIP 127.0.0.(i+1).
const MaxNodes = 254

// ControlPlaneName is the control plane's Node name.
const ControlPlaneName = "kube32-control-plane"

// Options configure a cluster. A port of 0 picks a free one.
type Options struct {
	Images      fs.FS // holds firmware/ and sd/
	Objects     []manifest.Object
	NodeIP      string // default 127.0.0.1
	IngressPort int
	PodPort     int
	APIPort     int
	Cache       wazero.CompilationCache
	// Pull pulls and keeps the OCI images of every node's pods
	// (docs/oci.md); nil: one that keeps them in memory only.
	Pull           *oci.Puller
	HandlerTimeout time.Duration
	// DefaultMemoryLimit caps, on every node, the memory of a container
	// without resources.limits.memory (serve's --default-memory-limit), in
	// bytes; 0 means pod.DefaultMemoryLimit.
	DefaultMemoryLimit int64
	// Board, when set (serve --board), gives every node the board's
	// budgets: its memory as the Node's capacity and allocatable, which
	// the scheduler fits pods into by their memory requests and the
	// kubelet keeps the pods' limits within, and its interpreter stack,
	// which bounds chains of in-process calls (docs/serve.md). nil: no
	// budgets.
	Board *abi.Board
	// BoardClock runs every node's callbacks on the board's clock (serve
	// --board-clock), and SlowCallback is the board time past which a
	// callback is logged (serve --slow-callback; 0 for the default):
	// docs/boards.md, "Time on the board".
	BoardClock   bool
	SlowCallback time.Duration
	// Unmetered runs every node's pods without counting their work (no
	// board time, no Server-Timing): kubelet.Config.Unmetered, for
	// bench/boardtime only.
	Unmetered bool
	// APITLSPort serves the same API over HTTPS, for the clients that
	// refuse plain HTTP (docs/serve.md); its identity is kept in CertDir,
	// or made in memory for this run when CertDir is "".
	APITLSPort int
	CertDir    string
	// Token, when set, is the bearer token the API server requires (the
	// cluster token of docs/nodes.md).
	Token string
	// AcceptHosts (serve's --accept-hosts) names, as regular expressions
	// separated by commas, the host names the API ports answer without a
	// token besides loopback and localhost (apiauth.CheckHost,
	// docs/serve.md); with a token every Host is answered.
	AcceptHosts string
	// Nodes is the cluster's size: the control plane plus Nodes-1 workers
	// in this process (0 and 1: the control plane alone). Worker i has
	// InternalIP 127.0.0.(i+1) and its pod HTTP server on PodPort there,
	// and reaches the control plane only through the API server.
	Nodes int
	// EgressCA is a PEM file of roots the control plane trusts for
	// https:// calls besides the operating system's (serve's --egress-ca);
	// "" for none.
	EgressCA string
	// UplinkDown starts the control plane's uplink down (serve's --uplink
	// down): hosts outside are unreachable until SetUplink(true).
	UplinkDown bool
	// MaxConnections is how many connections the cluster's listeners
	// (every port of every node in this process) hold open at once; at
	// the cap a new one takes the slot of the longest-idle keep-alive
	// connection, and streams hold at most their class's part
	// (httplimit.Stream). 0 is half the open-file limit, at most 4096
	// (docs/serve.md).
	MaxConnections int
	// NodeGrace is how long a node's Lease may go unrenewed before the
	// node is Ready=Unknown and its pods not Ready; 0 means
	// abi.NodeMonitorGracePeriod. LeaseRenewInterval is how often the
	// nodes of this process renew theirs; 0 means
	// abi.NodeLeaseRenewInterval. Tests shorten both.
	NodeGrace, LeaseRenewInterval time.Duration
	// PodLog receives every pod log line; Logf the cluster's own lines.
	PodLog func(namespace, name string, line pod.Line)
	Logf   func(format string, args ...any)

	// limits are the servers' timeouts (tests shorten them).
	limits httplimit.Limits
	// logClock is the time of the [EGRESS] lines' limits; nil is time.Now
	// (tests move it on instead of waiting out abi.LogRateInterval).
	logClock func() time.Time
}

// Cluster is a running control plane.
type Cluster struct {
	Store   *store.Store
	Kubelet *kubelet.Kubelet
	// Channels is the control plane's channel hub, the cluster's one
	// sequencer of channel messages (host/internal/channel).
	Channels *channel.Hub
	// Activity is the cluster's live record of requests, calls and channel
	// messages (host/internal/activity), which the web view streams (docs/ui.md).
	Activity *activity.Stream
	// Workers are the worker nodes started with Options.Nodes; set before
	// Start returns.
	Workers []*Worker
	// workersMu guards Workers while Start fills it in, for the API server
	// (logs, /readyz) already serving.
	workersMu sync.Mutex

	controller *ingress.Controller
	uplink     *outbound.Uplink

	ingressAddr, podAddr, apiAddr string
	applied                       bool
	// apiTLSAddr is the HTTPS API endpoint, whose certificate chains to
	// the CA certificate apiCA (PEM).
	apiTLSAddr string
	apiCA      []byte
	apiCAFile  string
	// apiClientCert and apiClientKey (PEM) are a client certificate the
	// CA signed, for a kubeconfig's user.
	apiClientCert, apiClientKey []byte
	// manifests are the keys of the objects applied from manifests, which
	// a later Apply prunes when they leave them (reapply.go).
	manifestMu sync.Mutex
	manifests  map[store.Key]bool

	// conns is the budget of open connections of every listener, the
	// workers' too; limits the servers' timeouts.
	conns  *httplimit.Conns
	limits httplimit.Limits

	cancel  context.CancelFunc
	servers []interface{ Shutdown(context.Context) error }
	// closing ends the requests in flight when Close begins: watches and
	// followed logs would otherwise hold the shutdown up.
	closing     context.Context
	stopServing context.CancelFunc
	wg          sync.WaitGroup
}

// Start listens on the four ports of the control plane (the Ingress, the
// pod port, the API over HTTP and over HTTPS), applies the objects and
// starts the pods.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.NodeIP == "" {
		opts.NodeIP = "127.0.0.1"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Nodes > MaxNodes {
		return nil, fmt.Errorf("--nodes %d: at most %d (node i is 127.0.0.(i+1))", opts.Nodes, MaxNodes)
	}
	acceptHosts, err := apiauth.ParseAcceptHosts(opts.AcceptHosts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiauth.AcceptHostsFlag, err)
	}
	roots, err := outbound.LoadRoots(opts.EgressCA)
	if err != nil {
		return nil, err
	}
	// The control plane's one NetworkPolicy check, over the object store:
	// its pods' calls and the egress gateway's alike.
	objects := store.New()
	policy, err := outbound.NewPolicy(kubelet.StoreSource(objects), opts.PodLog)
	if err != nil {
		return nil, fmt.Errorf("control plane: %w", err)
	}
	// The control plane's TLS sessions, shared by its pods and the egress
	// gateway of the workers' pods.
	uplink := outbound.NewUplink(!opts.UplinkDown, outbound.SystemNameServer("/etc/resolv.conf"), opts.Logf)
	httpsCalls := &outbound.TLS{Roots: roots, Policy: policy, Route: uplink, Logf: opts.Logf, LogClock: opts.logClock}
	identity, err := apiIdentity(opts.CertDir, opts.Logf)
	if err != nil {
		return nil, err
	}
	listeners, err := listenAll(opts.NodeIP, map[string]int{"ingress": opts.IngressPort, "api": opts.APIPort, "api-tls": opts.APITLSPort})
	if err != nil {
		return nil, err
	}
	podListeners, err := listenSamePort(append([]string{opts.NodeIP}, workerIPs(opts.Nodes)...), opts.PodPort)
	if err != nil {
		for _, l := range listeners {
			l.Close()
		}
		return nil, err
	}
	listeners["pod"] = podListeners[0]
	ctx, cancel := context.WithCancel(ctx)
	events := activity.New(0)
	c := &Cluster{Store: objects, cancel: cancel, Channels: channel.New(channel.Options{Logf: opts.Logf, Activity: events}), uplink: uplink, Activity: events,
		conns: httplimit.NewConns(opts.MaxConnections), limits: opts.limits,
		apiCA: identity.CAPEM, apiClientCert: identity.ClientCertPEM, apiClientKey: identity.ClientKeyPEM}
	// Before any kubelet renews its Lease there.
	c.Store.Apply(systemNamespace(abi.NamespaceNodeLease))
	c.closing, c.stopServing = context.WithCancel(context.Background())
	c.ingressAddr, c.podAddr, c.apiAddr = listeners["ingress"].Addr().String(), listeners["pod"].Addr().String(), listeners["api"].Addr().String()
	c.apiTLSAddr = listeners["api-tls"].Addr().String()
	if opts.CertDir != "" {
		c.apiCAFile = filepath.Join(opts.CertDir, servingcert.CAFile)
	}
	_, apiPort, _ := net.SplitHostPort(c.apiAddr)
	apiPortNumber, _ := strconv.Atoi(apiPort)
	_, podPort, _ := net.SplitHostPort(c.podAddr)
	podPortNumber, _ := strconv.Atoi(podPort)

	c.Kubelet, err = kubelet.New(kubelet.Config{
		NodeName: ControlPlaneName, NodeIP: opts.NodeIP, PodPort: podPortNumber, ControlPlane: true,
		Store: c.Store, Policy: policy, Images: opts.Images, Pull: opts.Pull, Cache: opts.Cache, HandlerTimeout: opts.HandlerTimeout, LeaseRenewInterval: opts.LeaseRenewInterval,
		DefaultMemoryLimit: opts.DefaultMemoryLimit,
		APIHost:            opts.NodeIP, APIPort: apiPortNumber, Log: opts.PodLog, Channels: c.Channels, HTTPS: httpsCalls,
		Outside: &outbound.Outside{Route: uplink}, Board: opts.Board, BoardClock: opts.BoardClock, SlowCallback: opts.SlowCallback, Unmetered: opts.Unmetered, Activity: events,
	})
	if err != nil {
		cancel()
		for _, l := range listeners {
			l.Close()
		}
		for _, l := range podListeners[1:] {
			l.Close()
		}
		return nil, err
	}
	c.controller = ingress.New(ingress.Config{Store: c.Store, Node: ControlPlaneName, Local: c.Kubelet, Images: opts.Images, IP: opts.NodeIP, Log: opts.Logf,
		Channels: c.Channels, Activity: events, Pull: opts.Pull})
	// The API port: one token check (apiauth) in front of the Kubernetes
	// API, the web view, the channel endpoint and the nodes' gateway and
	// relay, with the rules that keep web pages out (the Host, the media
	// types of bodies).
	gate := apiauth.New(apiauth.Config{Token: opts.Token, AcceptHosts: acceptHosts, Logf: opts.Logf})
	port := apiauth.NewMux(gate)
	apiserver.New(apiserver.Config{Ready: c.Ready, Store: c.Store, Logs: nodeLogs{c}, Token: opts.Token, Gate: gate,
		Local: c.Kubelet}).Mount(port)
	webview.Mount(port, webview.Config{Activity: events, TLSAddr: c.apiTLSAddr})
	channel.Mount(port, c.Channels)
	outbound.Mount(port, c.Store, &outbound.Gateway{TLS: httpsCalls, Logf: opts.Logf, LogClock: opts.logClock}, uplink)

	c.serve(listeners["api"], port)
	// TLS inside the connection budget, so that a connection stuck in its
	// handshake is idle and makes room like any other.
	c.serve(tls.NewListener(listeners["api-tls"], identity.ServerConfig()), apiauth.MarkHTTPS(port))
	c.serveData(listeners["pod"], c.Kubelet.PodServer())
	c.serveData(listeners["ingress"], c.controller)
	c.run(func() { c.Kubelet.Run(ctx) })
	c.run(func() { c.controller.Run(ctx) })
	c.run(func() { runScheduler(ctx, c.Store, scheduler.Options{DefaultMemoryLimit: defaultMemoryLimit(opts)}) })
	c.run(func() {
		nodelifecycle.Run(ctx, nodelifecycle.Config{Store: c.Store, Grace: opts.NodeGrace, Logf: opts.Logf})
	})

	for i, ip := range workerIPs(opts.Nodes) {
		w, err := StartWorker(ctx, WorkerOptions{
			Name: WorkerName(i + 1), NodeIP: ip, Listener: podListeners[i+1], API: c.APIURL(), Token: opts.Token,
			Images: opts.Images, Pull: opts.Pull, Cache: opts.Cache, HandlerTimeout: opts.HandlerTimeout, PodLog: opts.PodLog, Logf: opts.Logf,
			conns: c.conns, limits: c.limits, activity: events,
			DefaultMemoryLimit: opts.DefaultMemoryLimit, Board: opts.Board, BoardClock: opts.BoardClock, SlowCallback: opts.SlowCallback,
			Unmetered: opts.Unmetered, LeaseRenewInterval: opts.LeaseRenewInterval,
		})
		if err != nil {
			for _, l := range podListeners[i+1:] {
				l.Close()
			}
			c.Close()
			return nil, err
		}
		c.workersMu.Lock()
		c.Workers = append(c.Workers, w)
		c.workersMu.Unlock()
	}
	// Every node registers before the first pods are scheduled, so that
	// they spread over all of them.
	waitForNode(c.Store, ControlPlaneName)
	for i := range c.Workers {
		waitForNode(c.Store, WorkerName(i+1))
	}
	c.Store.Apply(defaultNamespace())
	if _, err := c.Apply(opts.Objects); err != nil { // as if applied through the API
		c.Close()
		return nil, err
	}
	c.applied = true
	return c, nil
}

// defaultMemoryLimit is the memory cap the nodes give a container without
// a limit, which the scheduler counts as its request when it has none.
func defaultMemoryLimit(opts Options) int64 {
	if opts.DefaultMemoryLimit > 0 {
		return opts.DefaultMemoryLimit
	}
	return pod.DefaultMemoryLimit
}

// workerPodsReported reports whether every pod bound to a worker of this
// process has had its status written back: a worker learns of its pods
// through a watch, so its kubelet alone may not know of the newest yet.
func (c *Cluster) workerPodsReported() bool {
	started := c.workers()
	if len(started) == 0 {
		return true
	}
	workers := map[string]bool{}
	for i := range started {
		workers[WorkerName(i+1)] = true
	}
	pods, _ := c.Store.ListShared(kinds.Pod, "") // read only
	for _, o := range pods {
		p := o.(*corev1.Pod)
		if workers[p.Spec.NodeName] && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodPending {
			return false
		}
	}
	return true
}

// workers returns the workers started so far.
func (c *Cluster) workers() []*Worker {
	c.workersMu.Lock()
	defer c.workersMu.Unlock()
	return c.Workers
}

// WorkerName is the Node name of worker i (1, 2, …).
func WorkerName(i int) string { return "kube32-worker-" + strconv.Itoa(i) }

// workerIPs are the InternalIPs of the workers of a cluster of n nodes:
// 127.0.0.2 and on.
func workerIPs(n int) []string {
	var ips []string
	for i := 1; i < n; i++ {
		ips = append(ips, "127.0.0."+strconv.Itoa(i+1))
	}
	return ips
}

// IngressURL, PodURL and APIURL are the base URLs the cluster serves.
func (c *Cluster) IngressURL() string { return "http://" + c.ingressAddr }

// PodURL is the control plane's pod HTTP server.
func (c *Cluster) PodURL() string { return "http://" + c.podAddr }

// APIURL is the API server over plain HTTP, which the nodes use.
func (c *Cluster) APIURL() string { return "http://" + c.apiAddr }

// APITLSURL is the API server over HTTPS, with a certificate that chains
// to APICA.
func (c *Cluster) APITLSURL() string { return "https://" + c.apiTLSAddr }

// APICA is the CA certificate, PEM-encoded, of APITLSURL.
func (c *Cluster) APICA() []byte { return c.apiCA }

// APIClientCert is a client certificate and its key (PEM) that the
// HTTPS endpoint takes, for a kubeconfig's user: kubectl wants a
// credential over HTTPS even where the API asks for none.
func (c *Cluster) APIClientCert() (cert, key []byte) { return c.apiClientCert, c.apiClientKey }

// APICAFile is the file holding APICA; "" when it was made for this run.
func (c *Cluster) APICAFile() string { return c.apiCAFile }

// Ready reports whether the manifests are applied and every pod has started
// or failed for good (what GET /readyz answers).
func (c *Cluster) Ready() bool {
	if !c.applied || !scheduler.AllPlaced(c.Store) || !c.Kubelet.Settled() || !c.controller.UpToDate() {
		return false
	}
	for _, w := range c.workers() {
		// A worker that does not follow the channels yet would miss the
		// first messages its pods subscribe to.
		if !w.Kubelet.Settled() || !w.Channels.Connected() {
			return false
		}
	}
	return c.workerPodsReported()
}

// WaitReady waits until Ready or ctx ends.
func (c *Cluster) WaitReady(ctx context.Context) error {
	for !c.Ready() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the cluster to be ready: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// SetUplink takes the control plane's uplink up or down, as PUT
// abi.UplinkPath does (docs/nodes.md, "The uplink").
func (c *Cluster) SetUplink(up bool) { c.uplink.Set(up) }

// UplinkUp reports whether the control plane's uplink is up.
func (c *Cluster) UplinkUp() bool { return c.uplink.Up() }

// Close stops the servers and the pods.
func (c *Cluster) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, w := range c.workers() {
		if err := w.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	c.stopServing()
	for _, s := range c.servers {
		if err := s.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	c.cancel()
	c.wg.Wait()
	return errors.Join(errs...)
}

// apiIdentity is the TLS identity of the HTTPS API endpoint: kept in dir,
// or made for this run when dir is "".
func apiIdentity(dir string, logf func(string, ...any)) (*servingcert.Identity, error) {
	if dir == "" {
		return servingcert.New()
	}
	return servingcert.Load(dir, logf)
}

// serve serves h on l within the cluster's connection budget and limits.
func (c *Cluster) serve(l net.Listener, h http.Handler) {
	s := c.conns.NewServer(h, c.limits)
	s.BaseContext = func(net.Listener) context.Context { return c.closing }
	c.servers = append(c.servers, s.Server)
	c.run(func() { _ = s.Serve(l) })
}

// serveData serves a port of the data plane on l (the Ingress, the pod
// port): on fasthttp, within the same budget and limits (docs/design.md,
// "Which server serves which port").
func (c *Cluster) serveData(l net.Listener, h http.Handler) {
	s := c.conns.NewFastServer(h, c.limits, c.closing)
	c.servers = append(c.servers, s)
	c.run(func() { _ = s.Serve(l) })
}

func (c *Cluster) run(f func()) {
	c.wg.Add(1)
	go func() { defer c.wg.Done(); f() }()
}

// listenSamePort listens on port on every IP; with port 0 it picks one
// that is free on all of them, since every node serves pods on the same
// port, as the boards do.
func listenSamePort(ips []string, port int) ([]net.Listener, error) {
	for attempt := 0; ; attempt++ {
		var ls []net.Listener
		var err error
		p := port
		for _, ip := range ips {
			var l net.Listener
			l, err = net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p)))
			if err != nil {
				break
			}
			ls = append(ls, l)
			if p == 0 {
				_, s, _ := net.SplitHostPort(l.Addr().String())
				p, _ = strconv.Atoi(s)
			}
		}
		if err == nil {
			return ls, nil
		}
		for _, l := range ls {
			l.Close()
		}
		if port != 0 || attempt == 20 {
			return nil, fmt.Errorf("pod port: %w (choose another with --pod-port)", err)
		}
	}
}

// listenAll opens every port or none, so a busy port fails the start cleanly.
func listenAll(ip string, ports map[string]int) (map[string]net.Listener, error) {
	listeners := map[string]net.Listener{}
	for name, port := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
		if err != nil {
			for _, open := range listeners {
				open.Close()
			}
			return nil, fmt.Errorf("%s port: %w (choose another with --%s-port)", name, err, name)
		}
		listeners[name] = l
	}
	return listeners, nil
}
