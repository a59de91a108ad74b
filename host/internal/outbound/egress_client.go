package outbound

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// Egress is a worker's HTTPS: it forwards each https:// call of the
// node's pods to the egress gateway on the control plane's API server,
// which makes the TLS connection and checks the call against the pod's
// NetworkPolicies; the worker makes no TLS connection itself.
type Egress struct {
	// API is the API server, http://host:port; Token its bearer token
	// ("" for none).
	API, Token string
	// NodeIP is the node's InternalIP, which the connections come from:
	// without a token the gateway accepts a pod's call only from the
	// InternalIP of the pod's node.
	NodeIP string
	// Transport sends the requests; nil means one of Egress's own.
	Transport http.RoundTripper

	once      sync.Once
	transport http.RoundTripper
}

var _ HTTPS = (*Egress)(nil)

// CallHTTPS implements HTTPS; it checks nothing itself, since the gateway checks
// the call against the pod's NetworkPolicies. The gateway's refusal is
// K32_ERR_PERM, an API server without the gateway K32_ERR_NOTSUP, and a
// code in abi.HeaderEgressResult the call's result.
func (e *Egress) CallHTTPS(ctx context.Context, t Target, call pod.Call) (pod.CallResult, error) {
	if t.Kind != OutsideTarget || t.Scheme != "https" {
		return pod.CallResult{}, abi.ErrInval
	}
	msg, err := egressMessage(t, call)
	if err != nil {
		return pod.CallResult{}, err
	}
	timeout := int(abi.CallTimeoutDefault.Milliseconds())
	if d, ok := ctx.Deadline(); ok {
		timeout = max(1, int((time.Until(d)+time.Millisecond-1)/time.Millisecond))
	}
	u := strings.TrimSuffix(e.API, "/") + abi.EgressPath + "?pod=" + call.From +
		"&timeout=" + strconv.Itoa(timeout) + "&limit=" + strconv.Itoa(call.RespCap)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(msg))
	if err != nil {
		return pod.CallResult{}, abi.ErrInval
	}
	req.Header.Set("Content-Type", abi.EgressContentType)
	if e.Token != "" {
		req.Header.Set("Authorization", "Bearer "+e.Token)
	}
	resp, err := e.roundTripper().RoundTrip(req)
	if err != nil {
		return pod.CallResult{}, IOErrno(ctx, err)
	}
	defer resp.Body.Close()
	if code, ok := answerErrno(resp); ok {
		return pod.CallResult{}, code // NOTSUP from an API server without the gateway
	}
	result, _ := strconv.Atoi(resp.Header.Get(abi.HeaderEgressResult))
	if result < 200 || result > 599 {
		return pod.CallResult{}, abi.ErrIO
	}
	body, truncated, err := ReadBody(resp.Body, -1, call.RespCap)
	if err != nil {
		return pod.CallResult{}, IOErrno(ctx, err)
	}
	h := resp.Header.Clone()
	for _, k := range []string{abi.HeaderEgressResult, "Connection", "Keep-Alive"} {
		h.Del(k)
	}
	return pod.CallResult{Status: result, Header: h, Body: body, Truncated: truncated}, nil
}

// egressMessage is the gateway request's body: the request Outside would
// send, with the absolute URL in its request line, and the call's body.
func egressMessage(t Target, call pod.Call) ([]byte, error) {
	abs := t
	abs.RequestURI = "https://" + t.HostHeader + t.RequestURI
	head, err := buildRequest(abs, call)
	if err != nil {
		return nil, err
	}
	return append(head, call.Body...), nil
}

// roundTripper returns Transport, or Egress's own: a keep-alive pool whose
// connections come from NodeIP, with the control plane's head limit.
func (e *Egress) roundTripper() http.RoundTripper {
	if e.Transport != nil {
		return e.Transport
	}
	e.once.Do(func() {
		e.transport = &http.Transport{
			DialContext:            dialFrom(e.NodeIP),
			MaxIdleConnsPerHost:    2,
			IdleConnTimeout:        90 * time.Second,
			DisableCompression:     true,
			MaxResponseHeaderBytes: 2 * abi.ControlPlaneHeadLimit,
		}
	})
	return e.transport
}

// dialFrom dials from the node's InternalIP, so that the control plane
// can tell the node by its address, or from any address when that is not
// one of this machine's (behind NAT: the control plane then needs the
// token).
func dialFrom(nodeIP string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	from := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if ip := net.ParseIP(nodeIP); ip != nil {
		from.LocalAddr = &net.TCPAddr{IP: ip}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := from.DialContext(ctx, network, addr)
		if errors.Is(err, syscall.EADDRNOTAVAIL) {
			return dialer.DialContext(ctx, network, addr)
		}
		return conn, err
	}
}
