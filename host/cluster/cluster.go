// Package cluster assembles what `kube32 serve` runs: the object store, the
// control plane's API server, scheduler, Ingress controller and kubelet, each
// on a real loopback address, as the boards run them.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/kube32/kube32/host/apiserver"
	"github.com/kube32/kube32/host/ingress"
	"github.com/kube32/kube32/host/kubelet"
	"github.com/kube32/kube32/host/manifest"
	"github.com/kube32/kube32/host/pod"
	"github.com/kube32/kube32/host/scheduler"
	"github.com/kube32/kube32/host/store"
)

// ControlPlaneName is the control plane's Node name.
const ControlPlaneName = "kube32-control-plane"

// Options configure a cluster. A port of 0 picks a free one.
type Options struct {
	Images         fs.FS // holds firmware/ and sd/
	Objects        []manifest.Object
	NodeIP         string // default 127.0.0.1
	IngressPort    int
	PodPort        int
	APIPort        int
	Cache          wazero.CompilationCache
	HandlerTimeout time.Duration
	// Token, when set, is the bearer token the API server requires (the
	// spec's cluster token).
	Token string
	// PodLog receives every pod log line; Logf the cluster's own lines.
	PodLog func(namespace, name string, line pod.Line)
	Logf   func(format string, args ...any)
}

// Cluster is a running control plane.
type Cluster struct {
	Store   *store.Store
	Kubelet *kubelet.Kubelet

	controller *ingress.Controller

	ingressAddr, podAddr, apiAddr string
	applied                       bool

	cancel  context.CancelFunc
	servers []*http.Server
	// closing ends the requests in flight when Close begins: watches and
	// followed logs would otherwise hold the shutdown up.
	closing     context.Context
	stopServing context.CancelFunc
	wg          sync.WaitGroup
}

// Start listens on the three ports, applies the objects and starts the pods.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.NodeIP == "" {
		opts.NodeIP = "127.0.0.1"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	listeners, err := listenAll(opts.NodeIP, map[string]int{"ingress": opts.IngressPort, "pod": opts.PodPort, "api": opts.APIPort})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &Cluster{Store: store.New(), cancel: cancel}
	c.closing, c.stopServing = context.WithCancel(context.Background())
	c.ingressAddr, c.podAddr, c.apiAddr = listeners["ingress"].Addr().String(), listeners["pod"].Addr().String(), listeners["api"].Addr().String()
	_, apiPort, _ := net.SplitHostPort(c.apiAddr)
	apiPortNumber, _ := strconv.Atoi(apiPort)
	_, podPort, _ := net.SplitHostPort(c.podAddr)
	podPortNumber, _ := strconv.Atoi(podPort)

	c.Kubelet = kubelet.New(kubelet.Config{
		NodeName: ControlPlaneName, NodeIP: opts.NodeIP, PodPort: podPortNumber, ControlPlane: true,
		Store: c.Store, Images: opts.Images, Cache: opts.Cache, HandlerTimeout: opts.HandlerTimeout,
		APIHost: opts.NodeIP, APIPort: apiPortNumber, Log: opts.PodLog,
	})
	c.controller = ingress.New(ingress.Config{Store: c.Store, Local: c.Kubelet, Images: opts.Images, IP: opts.NodeIP, Log: opts.Logf})
	api := apiserver.New(apiserver.Config{Ready: c.Ready, Store: c.Store, Logs: c.Kubelet, Token: opts.Token})

	c.serve(listeners["api"], api)
	c.serve(listeners["pod"], c.Kubelet.PodServer())
	c.serve(listeners["ingress"], c.controller)
	c.run(func() { c.Kubelet.Run(ctx) })
	c.run(func() { c.controller.Run(ctx) })
	c.run(func() { runScheduler(ctx, c.Store) })

	waitForNode(c.Store, ControlPlaneName)
	c.Store.Apply(defaultNamespace())
	for _, o := range opts.Objects {
		obj := o.Obj.DeepCopyObject()
		markApplied(obj)
		apiserver.SetDefaults(obj) // as if applied through the API
		c.Store.Apply(obj)
	}
	c.applied = true
	return c, nil
}

// IngressURL, PodURL and APIURL are the base URLs the cluster serves.
func (c *Cluster) IngressURL() string { return "http://" + c.ingressAddr }

// PodURL is the control plane's pod HTTP server.
func (c *Cluster) PodURL() string { return "http://" + c.podAddr }

// APIURL is the API server.
func (c *Cluster) APIURL() string { return "http://" + c.apiAddr }

// Ready reports whether the manifests are applied and every pod has started
// or failed for good (what GET /readyz answers).
func (c *Cluster) Ready() bool {
	return c.applied && scheduler.AllPlaced(c.Store) && c.Kubelet.Settled() && c.controller.UpToDate()
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

// Close stops the servers and the pods.
func (c *Cluster) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
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

func (c *Cluster) serve(l net.Listener, h http.Handler) {
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return c.closing }}
	c.servers = append(c.servers, s)
	c.run(func() { _ = s.Serve(l) })
}

func (c *Cluster) run(f func()) {
	c.wg.Add(1)
	go func() { defer c.wg.Done(); f() }()
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
