package call

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/nodehop"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// Remote calls pods on other nodes over keep-alive connections to their
// nodes' pod HTTP servers (host/internal/nodehop), with abi.HeaderPod and
// abi.HeaderCallChain.
type Remote struct {
	// Pool holds the connections; nil means nodehop.Shared, which the
	// Ingress shares.
	Pool *nodehop.Pool
}

// defaultRemote calls for the Clusters without a Remote of their own.
var defaultRemote = &Remote{}

// Do sends call to pod b on its node and reads at most call.RespCap bytes
// of the answer. A method, target or header that cannot travel is
// K32_ERR_INVAL, an unreachable node or a failed connection K32_ERR_IO, a
// passed deadline K32_ERR_TIMEOUT; a node that says b does not run there
// (abi.HeaderPodMissing) is errPodMissing.
func (r *Remote) Do(ctx context.Context, b service.Backend, t outbound.Target, call pod.Call) (pod.CallResult, error) {
	p := r.Pool
	if p == nil {
		p = nodehop.Shared
	}
	// Only the filtered headers travel: no User-Agent is added.
	req := &nodehop.Request{Method: call.Method, Target: t.RequestURI, Host: t.HostHeader, Pod: b.ID(), Header: chainHeader(call),
		ContentLength: int64(len(call.Body))}
	if len(call.Body) > 0 {
		req.Body = bytes.NewReader(call.Body)
	}
	resp, err := p.Do(ctx, b.Addr, req)
	if errors.Is(err, nodehop.ErrInvalid) {
		return pod.CallResult{}, abi.ErrInval
	}
	if err != nil {
		return pod.CallResult{}, outbound.IOErrno(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && resp.Header.Get(abi.HeaderPodMissing) == b.ID() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096)) // the connection goes back to the pool
		return pod.CallResult{}, errPodMissing
	}
	length := resp.ContentLength
	body, truncated, err := outbound.ReadBody(resp.Body, length, call.RespCap)
	if err != nil {
		return pod.CallResult{}, outbound.IOErrno(ctx, err)
	}
	if !truncated && length < 0 {
		// Read a short rest to its end so the connection goes back to the pool.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	}
	// The answer's header, without its hop-by-hop fields, is this call's
	// own: no copy needed.
	return pod.CallResult{Status: resp.StatusCode, Header: resp.Header, Body: body, Truncated: truncated}, nil
}
