package apiserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/call"
	"github.com/kube32/kube32/host/internal/lograte"
	"github.com/kube32/kube32/host/internal/netpol"
	"github.com/kube32/kube32/host/pod"
	"github.com/kube32/kube32/host/store"
)

// Egress is the API server's egress gateway (docs/calls.md, "The egress
// gateway"): it makes the https:// calls of the pods on workers through the
// control plane's TLS sessions, for nodes only, and checks each against the
// calling pod's NetworkPolicies in the object store.
type Egress struct {
	// TLS makes the connections; the control plane's pods share it.
	TLS *call.TLS
	// Logf receives "[EGRESS] gateway refused <address> (pod <pod>):
	// <reason>", at most once per abi.LogRateInterval; nil logs nothing.
	Logf func(format string, args ...any)
	// LogClock is the time of the line's limit; nil is time.Now (tests
	// move it on instead of waiting out abi.LogRateInterval).
	LogClock func() time.Time

	refusals lograte.Limiter
}

// Limits of a gateway request.
const (
	egressMaxBody        = 1 << 20 // the pod's request, head and body
	egressDefaultTimeout = int(abi.CallTimeoutDefault / time.Millisecond)
	egressMaxTimeout     = int(abi.CallTimeoutMax / time.Millisecond)
)

// serveEgress is POST abi.EgressPath?pod=<ns>/<name>&timeout=<ms>&limit=<bytes>.
func (s *Server) serveEgress(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from := q.Get("pod")
	namespace, name, _ := abi.SplitPodID(from)
	if reason := s.egressRefusal(r, namespace, name); reason != "" {
		s.refuseEgress(w, r, from, reason)
		return
	}
	timeout, err1 := queryInt(q.Get("timeout"), egressDefaultTimeout)
	limit, err2 := queryInt(q.Get("limit"), 0)
	mediaType, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	if err1 != nil || err2 != nil || limit < 0 || strings.TrimSpace(mediaType) != abi.EgressContentType {
		egressFailed(w, abi.ErrInval)
		return
	}
	timeout = min(max(timeout, 1), egressMaxTimeout)
	c, t, ok := readEgressRequest(w, r, from, namespace, limit)
	if !ok {
		egressFailed(w, abi.ErrInval)
		return
	}
	// The call ends when the worker closes the connection (r's context
	// ends then) or at the pod's deadline.
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(timeout)*time.Millisecond)
	defer cancel()
	resp, err := s.cfg.Egress.TLS.Open(ctx, t, c, s.egressAllow)
	var denied *call.DeniedError
	var code abi.Errno
	switch {
	case errors.As(err, &denied):
		s.refuseEgress(w, r, from, "NetworkPolicy: "+denied.Target+" denied: "+denied.Reason)
		return
	case errors.As(err, &code):
		egressFailed(w, code)
		return
	case err != nil:
		return // the worker is gone: nobody to answer
	}
	defer resp.Close()
	streamEgress(w, resp, limit)
}

// streamEgress answers with the host's status and head and its body as it
// arrives, chunked, stopping after limit+1 bytes (the worker then knows
// the body exceeded its resp_cap).
func streamEgress(w http.ResponseWriter, resp *call.Response, limit int) {
	h := w.Header()
	for k, v := range resp.Header {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Trailer", "Te", "Upgrade":
			continue // the gateway frames its own answer
		}
		h[k] = v
	}
	if _, ok := resp.Header["Date"]; !ok {
		h["Date"] = nil // not the gateway's own: the worker gets the host's head
	}
	h.Set(abi.HeaderEgressResult, strconv.Itoa(resp.Status))
	w.WriteHeader(resp.Status)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	body := io.LimitReader(resp.Body, int64(limit)+1)
	buf := make([]byte, 4096)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the worker is gone
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			// The host's answer broke off (or the call timed out): end the
			// stream without its last chunk, so the worker sees it fail.
			panic(http.ErrAbortHandler)
		}
	}
}

// egressRefusal says why the gateway refuses a call for the pod
// namespace/name from r, or "" when it makes it: the token when the API
// server has one, otherwise the InternalIP of the pod's node; and the pod
// must exist and be bound to a node.
func (s *Server) egressRefusal(r *http.Request, namespace, name string) string {
	if s.cfg.Token != "" && !s.authorized(r) {
		if r.Header.Get("Authorization") == "" {
			return "no bearer token"
		}
		return "wrong bearer token"
	}
	if namespace == "" || name == "" {
		return "no pod named"
	}
	o, ok := s.cfg.Store.Get(store.Key{Kind: "Pod", Namespace: namespace, Name: name})
	if !ok {
		return "no such pod"
	}
	p := o.(*corev1.Pod)
	if p.Spec.NodeName == "" {
		return "the pod is not bound to a node"
	}
	if s.cfg.Token != "" {
		return ""
	}
	n, ok := s.cfg.Store.Get(store.Key{Kind: "Node", Name: p.Spec.NodeName})
	if !ok {
		return "the pod's node " + p.Spec.NodeName + " does not exist"
	}
	remote := remoteAddr(r)
	for _, a := range n.(*corev1.Node).Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil && remote.IsValid() && ip.Unmap() == remote {
			return ""
		}
	}
	return "not the InternalIP of node " + p.Spec.NodeName
}

// refuseEgress answers K32_ERR_PERM and logs the refusal, unless one was
// logged less than a second ago.
func (s *Server) refuseEgress(w http.ResponseWriter, r *http.Request, from, reason string) {
	e := s.cfg.Egress
	if e.Logf != nil && e.refusals.AllowAt(lograte.Now(e.LogClock)) {
		address := r.RemoteAddr
		if a := remoteAddr(r); a.IsValid() {
			address = a.String()
		}
		e.Logf("[EGRESS] gateway refused %s (pod %s): %s", address, from, reason)
	}
	egressFailed(w, abi.ErrPerm)
}

// egressFailed answers a call that failed before the host answered: code
// in abi.HeaderEgressResult with a 4xx or 5xx status.
func egressFailed(w http.ResponseWriter, code abi.Errno) {
	status := http.StatusBadGateway
	switch code {
	case abi.ErrPerm:
		status = http.StatusForbidden
	case abi.ErrInval:
		status = http.StatusBadRequest
	case abi.ErrTimeout:
		status = http.StatusGatewayTimeout
	case abi.ErrBusy:
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", strconv.Itoa(int(abi.RetryAfterGatewayBusy/time.Second)))
	}
	w.Header().Set(abi.HeaderEgressResult, strconv.Itoa(int(code)))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, code.Name()+"\n")
}

// readEgressRequest reads the pod's request from r's abi.EgressContentType body:
// an https:// URL outside the cluster in its request line, its headers,
// and the rest as its body.
func readEgressRequest(w http.ResponseWriter, r *http.Request, from, namespace string, limit int) (pod.Call, call.Target, bool) {
	br := bufio.NewReader(http.MaxBytesReader(w, r.Body, egressMaxBody))
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return pod.Call{}, call.Target{}, false
	}
	method, rest, ok1 := strings.Cut(line, " ")
	url, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !strings.HasPrefix(proto, "HTTP/1.") || !strings.HasPrefix(url, "https://") {
		return pod.Call{}, call.Target{}, false
	}
	header, err := tp.ReadMIMEHeader()
	if err != nil {
		return pod.Call{}, call.Target{}, false
	}
	body, err := io.ReadAll(br)
	if err != nil {
		return pod.Call{}, call.Target{}, false
	}
	t, err := call.ParseTarget(url, namespace)
	if err != nil || t.Kind != call.OutsideTarget || t.Scheme != "https" {
		return pod.Call{}, call.Target{}, false
	}
	c := pod.Call{From: from, Method: method, URL: url, Header: http.Header(header), Body: body, RespCap: limit}
	return c, t, true
}

// egressAllow is the gateway's call.AllowFunc: the calling pod's
// NetworkPolicies, pod labels and namespaces from the object store, as
// the control plane checks its own pods.
func (s *Server) egressAllow(_ context.Context, from string, addr netip.AddrPort) error {
	namespace, name, _ := abi.SplitPodID(from)
	objs, _ := s.cfg.Store.ListShared("NetworkPolicy", namespace) // only read
	if len(objs) == 0 {
		return nil
	}
	policies := make([]*networkingv1.NetworkPolicy, 0, len(objs))
	for _, o := range objs {
		policies = append(policies, o.(*networkingv1.NetworkPolicy))
	}
	o, ok := s.cfg.Store.Get(store.Key{Kind: "Pod", Namespace: namespace, Name: name})
	if !ok {
		return &call.DeniedError{From: from, Target: addr.String(), Reason: "pod " + from + " not found"}
	}
	namespaces := func(ns string) map[string]string {
		if o, ok := s.cfg.Store.Get(store.Key{Kind: "Namespace", Name: ns}); ok {
			return o.(*corev1.Namespace).Labels
		}
		return nil
	}
	d := netpol.Evaluate(netpol.Pod{Namespace: namespace, Name: name, Labels: o.(*corev1.Pod).Labels}, policies, namespaces,
		netpol.Dest{Addr: addr.Addr(), Port: int32(addr.Port())})
	if !d.Allowed {
		return &call.DeniedError{From: from, Target: addr.String(), Reason: d.Reason}
	}
	return nil
}

// remoteAddr is the IP address r came from.
func remoteAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// queryInt reads a decimal query value, def when absent.
func queryInt(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	return strconv.Atoi(v)
}
