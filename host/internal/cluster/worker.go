package cluster

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/channel"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/kubelet"
	"github.com/kube32/kube32/host/internal/nodecert"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/oci"
)

// WorkerOptions configure a worker node.
type WorkerOptions struct {
	Name   string // the Node's name
	NodeIP string // its InternalIP, where its pod HTTP server listens
	// PodPort is the pod HTTP server's port (0 picks a free one);
	// Listener, when set, is used instead.
	PodPort  int
	Listener net.Listener
	// API is the control plane's API server (http://host:port), Token its
	// bearer token ("" for none).
	API, Token string
	// Kubernetes, when set, makes the worker a node of a Kubernetes
	// cluster instead (kube32 node --kubeconfig); API and Token are unused.
	Kubernetes *KubernetesOptions
	Images     fs.FS
	Cache      wazero.CompilationCache
	// Pull pulls and keeps the OCI images of the node's pods (docs/oci.md);
	// nil: one that keeps them in memory only.
	Pull           *oci.Puller
	HandlerTimeout time.Duration
	// DefaultMemoryLimit caps the memory of a container without
	// resources.limits.memory, in bytes; 0 means pod.DefaultMemoryLimit.
	DefaultMemoryLimit int64
	// Board, when set, gives the node the board's budgets (Options.Board).
	Board *abi.Board
	// BoardClock, SlowCallback and Unmetered are Options'.
	BoardClock   bool
	SlowCallback time.Duration
	Unmetered    bool
	// LeaseRenewInterval is how often the node renews its Lease; 0 means
	// abi.NodeLeaseRenewInterval.
	LeaseRenewInterval time.Duration
	// MaxConnections caps the open connections of the worker's pod port
	// when it has a budget of its own (node --join); 0 is half the
	// open-file limit, at most 4096 (docs/serve.md).
	MaxConnections int
	PodLog         func(namespace, name string, line pod.Line)
	// Logf receives the node's own log lines (nil: none).
	Logf func(format string, args ...any)

	// conns is the connection budget the worker shares with the cluster
	// of its process (nil: a budget of its own); limits its server's
	// timeouts.
	conns  *httplimit.Conns
	limits httplimit.Limits
	// activity is the stream of the cluster of its process, which its
	// pods' calls go to (nil under node --join: docs/ui.md).
	activity *activity.Stream
}

// Worker is a running worker node: a kubelet that reaches the control
// plane only over HTTP, through the API server, and its pod HTTP server.
type Worker struct {
	Kubelet *kubelet.Kubelet
	// Channels is the worker's channel hub: it forwards its pods'
	// publishes to the control plane and follows the control plane's
	// messages through the API server (host/internal/channel).
	Channels *channel.Hub
	podAddr  string
	server   *httplimit.FastServer
	// kubeletAPI is the kubelet API of a node of a Kubernetes cluster.
	kubeletAPI *kubeletAPI
	cancel     context.CancelFunc
	wg         sync.WaitGroup
}

// StartWorker registers a worker node with the API server and runs the
// pods the scheduler binds to it: a kube32 control plane's (opts.API), or a
// Kubernetes cluster's (opts.Kubernetes).
func StartWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	if opts.conns == nil {
		opts.conns = httplimit.NewConns(opts.MaxConnections)
	}
	// A node of a Kubernetes cluster acts there as itself,
	// system:node:<name>, which the cluster holds to its own objects.
	var creds *nodecert.Credentials
	if opts.Kubernetes != nil {
		var err error
		if opts, creds, err = nodeCredentials(ctx, opts); err != nil {
			return nil, err
		}
	}
	e, err := newWorkerEdges(opts)
	if err != nil {
		return nil, err
	}
	// The node's one NetworkPolicy check, over what the API server tells.
	policy, err := outbound.NewPolicy(e.source, opts.PodLog)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", opts.Name, err)
	}
	l := opts.Listener
	if l == nil {
		if l, err = net.Listen("tcp", net.JoinHostPort(opts.NodeIP, strconv.Itoa(opts.PodPort))); err != nil {
			return nil, fmt.Errorf("node %s: pod port: %w (choose another with --pod-port)", opts.Name, err)
		}
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	podPort, _ := strconv.Atoi(port)
	ctx, cancel := context.WithCancel(ctx)
	w := &Worker{podAddr: l.Addr().String(), cancel: cancel, Channels: e.channels}
	var kubeletAPI *kubeletAPI
	if opts.Kubernetes != nil {
		if kubeletAPI, err = listenKubeletAPI(opts); err != nil {
			cancel()
			l.Close()
			return nil, err
		}
		e.kubernetes = kubernetesNode(ctx, opts, kubeletAPI.port)
	}
	https := e.https
	if https == nil { // a node of a Kubernetes cluster: its own TLS sessions
		https = &outbound.TLS{Roots: e.roots, Policy: policy, Route: e.uplink, Logf: opts.Logf}
	}
	w.Kubelet, err = kubelet.New(kubelet.Config{
		NodeName: opts.Name, NodeIP: opts.NodeIP, PodPort: podPort, Source: e.source, Policy: policy,
		Images: opts.Images, Pull: opts.Pull, Cache: opts.Cache, HandlerTimeout: opts.HandlerTimeout, LeaseRenewInterval: opts.LeaseRenewInterval,
		DefaultMemoryLimit: opts.DefaultMemoryLimit,
		APIHost:            e.apiHost, APIPort: e.apiPort, Log: opts.PodLog, Board: opts.Board,
		BoardClock: opts.BoardClock, SlowCallback: opts.SlowCallback, Unmetered: opts.Unmetered,
		Outside: e.outside, HTTPS: https,
		Channels: w.Channels, Activity: opts.activity, Kubernetes: e.kubernetes,
	})
	if err == nil && kubeletAPI != nil {
		err = kubeletAPI.prepare(w.Kubelet, opts)
	}
	if err != nil {
		cancel()
		l.Close()
		kubeletAPI.close()
		return nil, err
	}
	registerCtx, cancelRegister := context.WithTimeout(ctx, 10*time.Second)
	err = w.Kubelet.Register(registerCtx)
	cancelRegister()
	if err != nil {
		cancel()
		l.Close()
		kubeletAPI.close()
		return nil, fmt.Errorf("joining %s: %w", e.apiName, err)
	}
	server := opts.conns.NewFastServer(w.Kubelet.PodServer(), opts.limits, nil)
	w.server = server
	w.wg.Add(3)
	go func() { defer w.wg.Done(); _ = server.Serve(l) }()
	go func() { defer w.wg.Done(); w.Channels.Run(ctx) }()
	go func() { defer w.wg.Done(); w.Kubelet.Run(ctx) }()
	if kubeletAPI != nil {
		w.kubeletAPI = kubeletAPI
		kubeletAPI.serve(&w.wg)
	}
	if creds != nil {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); creds.Run(ctx) }()
	}
	return w, nil
}

// workerEdges are how a worker reaches its cluster and the hosts outside.
type workerEdges struct {
	source           kubelet.Source
	apiName, apiHost string // the API server, for messages and KUBERNETES_SERVICE_HOST/_PORT
	apiPort          int
	outside          *outbound.Outside
	https            outbound.HTTPS // nil: outbound.TLS over roots and uplink
	roots            *x509.CertPool
	uplink           *outbound.Uplink
	channels         *channel.Hub
	kubernetes       *kubelet.KubernetesNode
}

// newWorkerEdges: a worker of a kube32 control plane reaches hosts outside
// through the control plane's uplink (its relay and egress gateway) and
// shares its channels; a node of a Kubernetes cluster has an uplink of its
// own, and channels between its own pods (docs/kubernetes.md).
func newWorkerEdges(opts WorkerOptions) (*workerEdges, error) {
	if k := opts.Kubernetes; k != nil {
		source, err := kubelet.NewKubernetesSource(k.Config)
		if err != nil {
			return nil, err
		}
		apiHost, apiPort, err := kubernetesAPIHostPort(k.Config.Host)
		if err != nil {
			return nil, err
		}
		roots, err := outbound.LoadRoots(k.EgressCA)
		if err != nil {
			return nil, err
		}
		uplink := outbound.NewUplink(true, outbound.SystemNameServer("/etc/resolv.conf"), opts.Logf)
		return &workerEdges{
			source: source, apiName: k.Config.Host, apiHost: apiHost, apiPort: apiPort,
			outside: &outbound.Outside{Route: uplink}, roots: roots, uplink: uplink,
			channels: channel.New(channel.Options{Logf: opts.Logf}),
		}, nil
	}
	source, err := kubelet.NewAPISource(opts.API, opts.Token)
	if err != nil {
		return nil, err
	}
	apiHost, apiPort, err := apiHostPort(opts.API)
	if err != nil {
		return nil, err
	}
	return &workerEdges{
		source: source, apiName: opts.API, apiHost: apiHost, apiPort: apiPort,
		// Hosts outside are reached through the control plane's uplink.
		outside: &outbound.Outside{HeadLimit: abi.WorkerHeadLimit, Route: &outbound.Relay{API: opts.API, Token: opts.Token, NodeIP: opts.NodeIP}},
		https:   &outbound.Egress{API: opts.API, Token: opts.Token, NodeIP: opts.NodeIP},
		channels: channel.New(channel.Options{
			Upstream: &channel.Upstream{API: opts.API, Token: opts.Token, Node: opts.Name}, Logf: opts.Logf,
		}),
	}, nil
}

// PodURL is the worker's pod HTTP server.
func (w *Worker) PodURL() string { return "http://" + w.podAddr }

// Close stops the worker's pods and its pod HTTP server.
func (w *Worker) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := w.server.Shutdown(ctx)
	w.kubeletAPI.close()
	w.cancel()
	w.wg.Wait()
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("stopping the pod server: %w", err)
	}
	return err
}

// apiHostPort splits the API server's URL for KUBERNETES_SERVICE_HOST/_PORT.
func apiHostPort(api string) (string, int, error) {
	u, err := parseHTTPURL(api)
	if err != nil {
		return "", 0, err
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = 80
	}
	return u.Hostname(), port, nil
}
