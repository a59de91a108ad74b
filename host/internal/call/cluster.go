package call

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// Cluster implements outbound.Services for one node: it resolves the Service from
// Objects (service.Resolve), picks a ready pod round-robin, refuses a
// loop, and calls the pod in-process on the caller's goroutine when it
// runs on this node, through Remote (host/internal/nodehop) otherwise.
type Cluster struct {
	Node string // this node's name
	// Objects are where outbound.Services resolve from: the object store on the
	// control plane, the API server (with its 3 s cache) on a worker; nil
	// knows no Service.
	Objects service.Objects
	Local   service.LocalPods
	// Remote calls pods on other nodes; nil means one over nodehop.Shared.
	Remote *Remote
	// Policy is the node's NetworkPolicy check (outbound.Policy.CheckService):
	// the call goes to one of the backends it allows; when it allows none,
	// the call fails with an *outbound.DeniedError (K32_ERR_PERM).
	// Required: a Cluster without one refuses every call.
	Policy *outbound.Policy
	// Board, when set (serve --board), bounds chains of in-process calls
	// by its interpreter stack: a call that would find less than
	// abi.InProcessCallStackBoard free fails with K32_ERR_NOMEM
	// (stack.go). nil: only abi.CallChainMax bounds them.
	Board *abi.Board

	next service.RoundRobin
}

var _ outbound.Services = (*Cluster)(nil)

// CallService implements outbound.Services.
func (c *Cluster) CallService(ctx context.Context, t outbound.Target, call pod.Call) (pod.CallResult, error) {
	if c.Objects == nil {
		return pod.CallResult{}, service.ErrNoService
	}
	backends, err := service.Resolve(ctx, c.Objects, t.Namespace, t.Service, service.PortRef{Number: int32(t.Port)})
	if errors.Is(err, service.ErrNoPort) {
		return pod.CallResult{}, abi.ErrNoEnt
	}
	if err != nil {
		return pod.CallResult{}, err
	}
	backends = ready(backends)
	if len(backends) == 0 {
		return pod.CallResult{}, &NoReadyPodError{From: call.From, Target: t.ServiceName()}
	}
	if backends, err = c.Policy.CheckService(ctx, call.From, t.ServiceName(), backends); err != nil {
		return pod.CallResult{}, err
	}
	// The pod of the round, then, should its node say it does not run
	// there (gone, or terminating: the node saw it before this node's
	// view did), the next ones.
	first := c.next.Next(len(backends))
	if len(call.Chain) >= abi.CallChainMax || slices.Contains(call.Chain, backends[first].ID()) {
		return pod.CallResult{}, abi.ErrLoop
	}
	for i := range backends {
		b := backends[(first+i)%len(backends)]
		if slices.Contains(call.Chain, b.ID()) {
			continue
		}
		res, err := c.callPod(ctx, b, t, call)
		if errors.Is(err, errPodMissing) {
			continue
		}
		return res, err
	}
	return pod.CallResult{}, abi.ErrNoEnt
}

// errPodMissing: the pod of a call is no longer where the resolver said.
var errPodMissing = errors.New("the pod does not run on its node")

// callPod calls pod b: in-process when it runs on this node, else through
// Remote. It fails with errPodMissing when b's node does not run it.
func (c *Cluster) callPod(ctx context.Context, b service.Backend, t outbound.Target, call pod.Call) (pod.CallResult, error) {
	if b.Node == c.Node && c.Local != nil {
		h, ok := c.Local.Handler(b.Namespace, b.Name)
		if !ok {
			// Ready in the store but gone here: stopped a moment ago.
			return pod.CallResult{}, errPodMissing
		}
		localCtx, err := stackFor(ctx, call.Inbound, c.Board)
		if err != nil {
			return pod.CallResult{}, err
		}
		return callLocal(localCtx, h, t, call)
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

// ready keeps the ready backends: calls go to ready pods only.
func ready(backends []service.Backend) []service.Backend {
	out := backends[:0:0]
	for _, b := range backends {
		if b.Ready {
			out = append(out, b)
		}
	}
	return out
}

// chainHeader is the header a called pod sees: the filtered caller
// headers plus the call chain.
func chainHeader(call pod.Call) http.Header {
	h := outbound.ServiceHeader(call.Header)
	h.Set(abi.HeaderCallChain, pod.FormatCallChain(call.Chain))
	return h
}
