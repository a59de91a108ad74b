package outbound

import (
	"context"
	"errors"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// Services carries calls to Services in the cluster. The control plane
// implements it over the object store, workers over the API server (with
// a cache of abi.APICacheTTL); both call a backing pod on the same node
// in-process and one on another node over the keep-alive pool with
// abi.HeaderPod and abi.HeaderCallChain.
type Services interface {
	// CallService makes call to the Service t.Namespace/t.Service on
	// t.Port (0: its first port). The caller headers a target pod may see
	// are ServiceHeader(call.Header). It returns service.ErrNoService
	// (possibly wrapped) when no such Service exists, so the "<service>.<namespace>"
	// form can fall back to a host outside; abi.Errno(K32_ERR_NOENT) when
	// the port is unknown or no ready pod is selected; LOOP, NOMEM, IO,
	// TIMEOUT, … as abi.Errno; and a result with Truncated set when the
	// body exceeded call.RespCap.
	CallService(ctx context.Context, t Target, call pod.Call) (pod.CallResult, error)
}

// Caller carries out k32_http_call for the pods of a node: it implements
// pod.Caller. A Caller whose Outside has no Policy refuses every call to a
// host outside (K32_ERR_PERM).
type Caller struct {
	// Outside calls hosts outside the cluster; nil refuses them all.
	Outside *Outside
	// Services calls Services in the cluster; nil means none exists (every
	// Service target is K32_ERR_NOENT, "<service>.<namespace>" names fall
	// back to a host outside).
	Services Services
	// HTTPS carries https:// calls; nil answers them K32_ERR_NOTSUP (a
	// node that makes no TLS connections). A TLS checks the connections
	// it opens with its own Policy, the node's.
	HTTPS HTTPS
}

var _ pod.Caller = (*Caller)(nil)

// HTTPCall implements pod.Caller: it parses call.URL for the calling pod's
// namespace and sends the call to its Service or host; https:// goes to
// HTTPS (K32_ERR_NOTSUP without one).
func (c *Caller) HTTPCall(ctx context.Context, call pod.Call) (pod.CallResult, error) {
	namespace, _, _ := abi.SplitPodID(call.From)
	t, err := ParseTarget(call.URL, namespace)
	if err != nil {
		return pod.CallResult{}, err
	}
	if t.Kind == ServiceTarget {
		res, err := c.callService(ctx, t, call)
		// No such Service: the pod gets K32_ERR_NOENT, unless the URL's
		// host may name a host outside instead.
		if !errors.Is(err, service.ErrNoService) {
			return res, err
		}
		if !t.FallbackOutside {
			return pod.CallResult{}, abi.ErrNoEnt
		}
		t = t.Outside()
	}
	o := c.Outside
	if o == nil {
		o = &Outside{}
	}
	if t.Scheme == "https" {
		if c.HTTPS == nil {
			return pod.CallResult{}, abi.ErrNotSup
		}
		return c.HTTPS.CallHTTPS(ctx, t, call)
	}
	return o.Do(ctx, t, call)
}

// callService hands a Service target to Services, or reports that no
// Service exists when there is none.
func (c *Caller) callService(ctx context.Context, t Target, call pod.Call) (pod.CallResult, error) {
	if c.Services == nil {
		return pod.CallResult{}, service.ErrNoService
	}
	return c.Services.CallService(ctx, t, call)
}
