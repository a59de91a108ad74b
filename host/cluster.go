package host

import (
	"context"
	"crypto/x509"
	"io/fs"
	"net"
	"time"

	"github.com/tetratelabs/wazero"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/cluster"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/oci"
)

// A Cluster is a control plane with its workers, in this process. Its
// objects change only through admission (Apply, ApplyObject), as the API
// server's do.
type Cluster struct {
	c       *cluster.Cluster
	workers []*Worker
}

// Options configures Start; each field is the serve flag of the same
// meaning (docs/serve.md), 0 or "" its default.
type Options struct {
	Images                        fs.FS // holds firmware/ and sd/
	Objects                       []manifest.Object
	NodeIP                        string // default 127.0.0.1
	IngressPort, PodPort, APIPort int
	APITLSPort                    int
	CertDir                       string // keeps the HTTPS API's identity ("": in memory)
	Cache                         wazero.CompilationCache
	ImageCache                    string // keeps the pulled OCI images by digest (docs/oci.md); "": in memory only
	HandlerTimeout                time.Duration
	DefaultMemoryLimit            int64
	Board                         *abi.Board
	BoardClock                    bool
	SlowCallback                  time.Duration
	Unmetered                     bool // no board time nor Server-Timing (bench/boardtime only)
	Token                         string
	AcceptHosts                   string
	Nodes                         int
	EgressCA                      string
	UplinkDown                    bool
	MaxConnections                int
	// NodeGrace and LeaseRenewInterval shorten the nodes' heartbeats
	// (0: abi.NodeMonitorGracePeriod and abi.NodeLeaseRenewInterval).
	NodeGrace, LeaseRenewInterval time.Duration
	PodLog                        func(namespace, name string, line LogLine)
	Logf                          func(format string, args ...any)
}

// Applied says what Cluster.Apply changed: the objects, as kubectl names
// them.
type Applied struct {
	Created, Configured, Deleted []string
}

// Changed reports whether anything changed.
func (a Applied) Changed() bool { return cluster.Applied(a).Changed() }

// String is kubectl apply's report: "pod/echo configured, service/web created".
func (a Applied) String() string { return cluster.Applied(a).String() }

// ControlPlaneName is the control plane's Node name.
const ControlPlaneName = cluster.ControlPlaneName

// MaxNodes is the largest cluster serve runs.
const MaxNodes = cluster.MaxNodes

// Start runs a cluster: its ports, its objects and its pods. The
// cluster is not ready yet (WaitReady); ctx's StartHooks get it first.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	c, err := cluster.Start(ctx, cluster.Options{
		Images: opts.Images, Objects: opts.Objects, NodeIP: opts.NodeIP,
		IngressPort: opts.IngressPort, PodPort: opts.PodPort, APIPort: opts.APIPort,
		APITLSPort: opts.APITLSPort, CertDir: opts.CertDir, Cache: opts.Cache, Pull: puller(opts.ImageCache),
		HandlerTimeout: opts.HandlerTimeout, DefaultMemoryLimit: opts.DefaultMemoryLimit,
		Board: opts.Board, BoardClock: opts.BoardClock, SlowCallback: opts.SlowCallback, Unmetered: opts.Unmetered,
		Token: opts.Token, AcceptHosts: opts.AcceptHosts, Nodes: opts.Nodes, EgressCA: opts.EgressCA,
		UplinkDown: opts.UplinkDown, MaxConnections: opts.MaxConnections,
		NodeGrace: opts.NodeGrace, LeaseRenewInterval: opts.LeaseRenewInterval,
		PodLog: podLogOf(opts.PodLog), Logf: opts.Logf,
	})
	if err != nil {
		return nil, err
	}
	out := &Cluster{c: c}
	for _, w := range c.Workers {
		out.workers = append(out.workers, &Worker{w: w})
	}
	if hook := startHooks(ctx).Cluster; hook != nil {
		hook(out)
	}
	return out, nil
}

// The cluster's endpoints and the HTTPS API's identity.
func (c *Cluster) IngressURL() string                { return c.c.IngressURL() }
func (c *Cluster) PodURL() string                    { return c.c.PodURL() }
func (c *Cluster) APIURL() string                    { return c.c.APIURL() }
func (c *Cluster) APITLSURL() string                 { return c.c.APITLSURL() }
func (c *Cluster) APICA() []byte                     { return c.c.APICA() }
func (c *Cluster) APICAFile() string                 { return c.c.APICAFile() }
func (c *Cluster) APIClientCert() (cert, key []byte) { return c.c.APIClientCert() }

// Ready reports whether every node is Ready and every pod Running and
// Ready; WaitReady waits for it.
func (c *Cluster) Ready() bool                         { return c.c.Ready() }
func (c *Cluster) WaitReady(ctx context.Context) error { return c.c.WaitReady(ctx) }

// SetUplink brings the control plane's uplink up or down; UplinkUp says
// which it is.
func (c *Cluster) SetUplink(up bool) { c.c.SetUplink(up) }
func (c *Cluster) UplinkUp() bool    { return c.c.UplinkUp() }

// Apply makes the cluster's objects from manifests those of objs, through
// admission, pruning what an earlier Apply made and objs lack.
func (c *Cluster) Apply(objs []manifest.Object) (Applied, error) {
	a, err := c.c.Apply(objs)
	return Applied(a), err
}

// ApplyObject creates or replaces one object, admitted as the API server
// admits it.
func (c *Cluster) ApplyObject(obj runtime.Object) error {
	return applyAdmitted(c.c.Store, obj)
}

// Delete removes an object.
func (c *Cluster) Delete(key Key) { c.c.Store.Delete(store.Key(key)) }

// Get returns an object; List the objects of a kind in a namespace ("":
// every namespace).
func (c *Cluster) Get(key Key) (runtime.Object, bool) { return c.c.Store.Get(store.Key(key)) }
func (c *Cluster) List(kind, namespace string) []runtime.Object {
	return c.c.Store.List(kind, namespace)
}

// ImagesChanged restarts the pods of the image trees refs, rebuilt in
// place; BundlesChanged tells the Ingress that bundles changed.
func (c *Cluster) ImagesChanged(refs []string)         { c.c.ImagesChanged(refs) }
func (c *Cluster) BundlesChanged(names []string) error { return c.c.BundlesChanged(names) }

// Pod is a pod running on the control plane.
func (c *Cluster) Pod(namespace, name string) (*Pod, bool) {
	return podOf(c.c.Kubelet.Pod(namespace, name))
}

// Caller makes in-process calls from the control plane's pods' side
// (bench/calls).
func (c *Cluster) Caller() Caller { return callerOut{c.c.Kubelet.Caller()} }

// Workers are the worker nodes started with Options.Nodes.
func (c *Cluster) Workers() []*Worker { return c.workers }

// Close stops the cluster.
func (c *Cluster) Close() error { return c.c.Close() }

// A Worker is a node that joined a control plane.
type Worker struct{ w *cluster.Worker }

// WorkerOptions configures StartWorker; the fields are node's flags
// (docs/nodes.md).
type WorkerOptions struct {
	Name   string // the Node's name
	NodeIP string // its InternalIP, where its pod HTTP server listens
	// PodPort is the pod HTTP server's port (0 picks a free one);
	// Listener, when set, is used instead.
	PodPort  int
	Listener net.Listener
	// API is the control plane's API server, Token its bearer token.
	API, Token string
	// Kubernetes, when set, makes the worker a node of a Kubernetes
	// cluster instead; API and Token are unused.
	Kubernetes         *KubernetesOptions
	Images             fs.FS
	Cache              wazero.CompilationCache
	ImageCache         string // as Options'
	HandlerTimeout     time.Duration
	DefaultMemoryLimit int64
	Board              *abi.Board
	BoardClock         bool
	SlowCallback       time.Duration
	Unmetered          bool
	LeaseRenewInterval time.Duration
	MaxConnections     int
	PodLog             func(namespace, name string, line LogLine)
	Logf               func(format string, args ...any)
}

// KubernetesOptions make a worker a node of a Kubernetes cluster
// (kube32 node --kubeconfig, docs/kubernetes.md).
type KubernetesOptions struct {
	Config          *rest.Config
	KubeletPort     int
	KubeletListener net.Listener
	// ClientCAs verify the kubelet API's callers' certificates (nil: only
	// bearer tokens).
	ClientCAs        *x509.CertPool
	EgressCA         string
	CertDir          string
	HostnameOverride string
}

// StartWorker runs a node that registers with a control plane's API server.
func StartWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	o := cluster.WorkerOptions{
		Name: opts.Name, NodeIP: opts.NodeIP, PodPort: opts.PodPort, Listener: opts.Listener,
		API: opts.API, Token: opts.Token, Images: opts.Images, Cache: opts.Cache, Pull: puller(opts.ImageCache),
		HandlerTimeout: opts.HandlerTimeout, DefaultMemoryLimit: opts.DefaultMemoryLimit,
		Board: opts.Board, BoardClock: opts.BoardClock, SlowCallback: opts.SlowCallback, Unmetered: opts.Unmetered,
		LeaseRenewInterval: opts.LeaseRenewInterval, MaxConnections: opts.MaxConnections,
		PodLog: podLogOf(opts.PodLog), Logf: opts.Logf,
	}
	if k := opts.Kubernetes; k != nil {
		ko := cluster.KubernetesOptions(*k)
		o.Kubernetes = &ko
	}
	w, err := cluster.StartWorker(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Worker{w: w}, nil
}

// PodURL is the worker's pod HTTP server; KubeletURL its kubelet API on a
// Kubernetes cluster.
func (w *Worker) PodURL() string     { return w.w.PodURL() }
func (w *Worker) KubeletURL() string { return w.w.KubeletURL() }

// Pod is a pod running on the worker.
func (w *Worker) Pod(namespace, name string) (*Pod, bool) {
	return podOf(w.w.Kubelet.Pod(namespace, name))
}

// Close stops the worker.
func (w *Worker) Close() error { return w.w.Close() }

// WorkerName is the Node name of worker i (1, 2, …).
func WorkerName(i int) string { return cluster.WorkerName(i) }

// puller pulls OCI images into dir (docs/oci.md); "" keeps them in memory
// only. One per Start: the nodes of a cluster and its Ingress share their
// pulls.
func puller(dir string) *oci.Puller { return &oci.Puller{Dir: dir} }
