package call

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
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
	// IP is the pod's IP (its node's address) and Port the Service port's
	// target port on the pod, which NetworkPolicy rules compare.
	IP   string
	Port int32
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
	// abi.Errno(K32_ERR_NOENT) when it has no such port; no ready pod is an
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
	// Allow, when set, checks whether NetworkPolicy lets the pod from
	// ("<namespace>/<name>") connect to a backend; nil allows, an error
	// says why not. The call goes to one of the backends it allows; when
	// it allows none, the call fails with a *DeniedError (K32_ERR_PERM).
	Allow func(ctx context.Context, from string, b Backend) error

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
		return pod.CallResult{}, abi.ErrNoEnt // no ready pod selected
	}
	if backends, err = c.allowed(ctx, t, call.From, backends); err != nil {
		return pod.CallResult{}, err
	}
	b := backends[int(c.next.Add(1)-1)%len(backends)]
	if slices.Contains(call.Chain, b.ID()) || len(call.Chain) >= abi.CallChainMax {
		return pod.CallResult{}, abi.ErrLoop
	}
	if b.Node == c.Node && c.Local != nil {
		h, ok := c.Local.Handler(b.Namespace, b.Name)
		if !ok {
			// Ready in the store but gone here: stopped a moment ago.
			return pod.CallResult{}, abi.ErrNoEnt
		}
		return callLocal(ctx, h, t, call)
	}
	if b.Addr == "" {
		return pod.CallResult{}, fmt.Errorf("call %s on node %s: the node has no pod server address: %w", b.ID(), b.Node, abi.ErrIO)
	}
	r := c.Remote
	if r == nil {
		r = defaultRemote
	}
	return r.Do(ctx, b, t, call)
}

// allowed keeps the backends Allow lets from connect to, or fails with
// the first refusal's reason when it lets none.
func (c *Cluster) allowed(ctx context.Context, t Target, from string, backends []Backend) ([]Backend, error) {
	if c.Allow == nil {
		return backends, nil
	}
	var ok []Backend
	var first error
	for _, b := range backends {
		err := c.Allow(ctx, from, b)
		if err == nil {
			ok = append(ok, b)
		} else if first == nil {
			first = err
		}
	}
	if len(ok) == 0 {
		target := t.Service + "." + t.Namespace
		if t.Port != 0 {
			target += ":" + strconv.Itoa(t.Port)
		}
		reason := first.Error()
		if len(backends) > 1 {
			reason = fmt.Sprintf("none of its %d pods is allowed; %s: %s", len(backends), backends[0].ID(), reason)
		}
		return nil, &DeniedError{From: from, Target: target, Reason: reason}
	}
	return ok, nil
}

// chainHeader is the header a called pod sees: the filtered caller
// headers plus the call chain.
func chainHeader(call pod.Call) http.Header {
	h := ServiceHeader(call.Header)
	h.Set(abi.HeaderCallChain, pod.FormatCallChain(call.Chain))
	return h
}
