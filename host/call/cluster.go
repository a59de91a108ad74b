package call

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/pod"
)

// Backend is one ready pod behind a Service port.
type Backend struct {
	Namespace, Name string
	// Node is the node the pod runs on; Addr that node's pod HTTP server,
	// "<InternalIP>:<pod port>", which pods on other nodes are called at.
	Node, Addr string
}

// ID is the pod as a call chain names it, "<namespace>/<name>".
func (b Backend) ID() string { return b.Namespace + "/" + b.Name }

// Resolver finds the ready pods behind a Service port: the control plane
// reads them from its object store (StoreResolver), workers from the API
// server (APIResolver).
type Resolver interface {
	// Resolve returns the ready pods behind port of the Service
	// namespace/name (0: its first port). It fails with ErrNoService
	// (possibly wrapped) when no such Service exists and with
	// pod.Errno(K32_ERR_NOENT) when it has no such port; no ready pod is an
	// empty list.
	Resolve(ctx context.Context, namespace, name string, port int) ([]Backend, error)
}

// LocalPods gives the in-process handlers of the pods of this node.
type LocalPods interface {
	Handler(namespace, name string) (http.Handler, bool)
}

// Cluster implements Services for one node: it resolves the Service with
// Resolver, picks a ready pod round-robin, refuses a loop, and calls the
// pod in-process on the caller's goroutine when it runs on this node, over
// Remote's keep-alive pool otherwise.
type Cluster struct {
	Node     string // this node's name
	Resolver Resolver
	Local    LocalPods
	// Remote calls pods on other nodes; nil means a shared default pool.
	Remote *Remote

	next atomic.Uint64
}

var _ Services = (*Cluster)(nil)

// CallService implements Services.
func (c *Cluster) CallService(ctx context.Context, t Target, call pod.Call) (pod.CallResult, error) {
	if c.Resolver == nil {
		return pod.CallResult{}, ErrNoService
	}
	backends, err := c.Resolver.Resolve(ctx, t.Namespace, t.Service, t.Port)
	if err != nil {
		return pod.CallResult{}, err
	}
	if len(backends) == 0 {
		return pod.CallResult{}, pod.Errno(abi.ErrNoEnt) // no ready pod selected
	}
	b := backends[int(c.next.Add(1)-1)%len(backends)]
	if slices.Contains(call.Chain, b.ID()) || len(call.Chain) >= pod.MaxCallChain {
		return pod.CallResult{}, pod.Errno(abi.ErrLoop)
	}
	if b.Node == c.Node && c.Local != nil {
		h, ok := c.Local.Handler(b.Namespace, b.Name)
		if !ok {
			// Ready in the store but gone here: stopped a moment ago.
			return pod.CallResult{}, pod.Errno(abi.ErrNoEnt)
		}
		return callLocal(ctx, h, t, call)
	}
	if b.Addr == "" {
		return pod.CallResult{}, fmt.Errorf("call %s on node %s: the node has no pod server address: %w", b.ID(), b.Node, pod.Errno(abi.ErrIO))
	}
	r := c.Remote
	if r == nil {
		r = defaultRemote
	}
	return r.Do(ctx, b, t, call)
}

// chainHeader is the header a called pod sees: the filtered caller
// headers plus the call chain.
func chainHeader(call pod.Call) http.Header {
	h := ServiceHeader(call.Header)
	h.Set(pod.HeaderCallChain, pod.FormatCallChain(call.Chain))
	return h
}
