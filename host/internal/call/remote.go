package call

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// Remote calls pods on other nodes over a keep-alive pool of HTTP/1.1
// connections to their nodes' pod HTTP servers, with abi.HeaderPod and
// abi.HeaderCallChain.
type Remote struct {
	// Transport is the pool; nil means NewPool().
	Transport *http.Transport
}

// defaultRemote is the pool of Clusters without a Remote of their own.
var defaultRemote = &Remote{Transport: NewPool()}

// poolIdlePerNode is how many idle connections a pool keeps to one node:
// as many as requests in flight to it under a load test (wrk -c32 and well
// beyond), so that a burst finds its connections open instead of dialling
// and closing one per request. The pod servers close idle connections
// first when their connection budget runs short (host/internal/httplimit).
const poolIdlePerNode = 256

// NewPool returns a keep-alive pool for node-to-node requests: HTTP/1.1
// only, no proxy from the environment, no transparent gzip (the target
// gets the caller's Accept-Encoding and the caller the body as sent).
func NewPool() *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        4 * poolIdlePerNode,
		MaxIdleConnsPerHost: poolIdlePerNode,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
}

// Do sends call to pod b on its node and reads at most call.RespCap bytes
// of the answer. An unreachable node or a failed connection is K32_ERR_IO,
// a passed deadline K32_ERR_TIMEOUT.
func (r *Remote) Do(ctx context.Context, b service.Backend, t outbound.Target, call pod.Call) (pod.CallResult, error) {
	tr := r.Transport
	if tr == nil {
		tr = defaultRemote.Transport
	}
	req, err := http.NewRequestWithContext(ctx, call.Method, "http://"+b.Addr+t.RequestURI, bytes.NewReader(call.Body))
	if err != nil {
		return pod.CallResult{}, abi.ErrInval
	}
	req.Host = t.HostHeader
	req.Header = chainHeader(call)
	req.Header.Set(abi.HeaderPod, b.ID())
	req.Header["User-Agent"] = []string{""} // net/http sends none then: only the filtered headers travel
	req.ContentLength = int64(len(call.Body))
	if len(call.Body) == 0 {
		req.Body = http.NoBody
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return pod.CallResult{}, outbound.IOErrno(ctx, err)
	}
	defer resp.Body.Close()
	length := resp.ContentLength
	body, truncated, err := outbound.ReadBody(resp.Body, length, call.RespCap)
	if err != nil {
		return pod.CallResult{}, outbound.IOErrno(ctx, err)
	}
	if !truncated && length < 0 {
		// Drain a short rest so the connection goes back to the pool.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	}
	// The answer's header is this call's own: no copy needed.
	h := resp.Header
	h.Del("Connection")
	h.Del("Keep-Alive")
	return pod.CallResult{Status: resp.StatusCode, Header: h, Body: body, Truncated: truncated}, nil
}
