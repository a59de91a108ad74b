package outbound

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/apistatus"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/lograte"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
)

// Gateway is the server half of the egress gateway (docs/calls.md, "The
// egress gateway"), whose client half is Egress: it makes the https://
// calls of the pods on workers through the control plane's TLS sessions,
// for nodes only, each checked by TLS's Policy, the control plane's, which
// reads the calling pod's NetworkPolicies in the object store.
type Gateway struct {
	// TLS makes the connections; the control plane's pods share it.
	TLS *TLS
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

// Handler serves POST abi.EgressPath?pod=<ns>/<name>&timeout=<ms>&limit=<bytes>
// for the clients nodes tells to be nodes. It checks the token itself, to
// answer and log refusals.
func (g *Gateway) Handler(nodes *Nodes) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.serve(nodes, w, r) })
}

func (g *Gateway) serve(nodes *Nodes, w http.ResponseWriter, r *http.Request) {
	if err := apiauth.CheckBody(r, apiauth.EgressBody); err != nil {
		// The API port's rule for bodies (abi.EgressContentType), answered
		// as the gateway answers: the code, here with the rule's 415.
		w.Header().Set(abi.HeaderEgressResult, strconv.Itoa(int(abi.ErrInval)))
		apistatus.Write(w, err)
		return
	}
	q := r.URL.Query()
	from := q.Get("pod")
	namespace, name, _ := abi.SplitPodID(from)
	if reason := egressRefusal(nodes, r, namespace, name); reason != "" {
		g.refuse(w, r, from, reason)
		return
	}
	timeout, err1 := queryInt(q.Get("timeout"), egressDefaultTimeout)
	limit, err2 := queryInt(q.Get("limit"), 0)
	if err1 != nil || err2 != nil || limit < 0 {
		writeErrno(w, abi.ErrInval)
		return
	}
	timeout = min(max(timeout, 1), egressMaxTimeout)
	c, t, ok := readEgressRequest(w, r, from, namespace, limit)
	if !ok {
		writeErrno(w, abi.ErrInval)
		return
	}
	// The call ends when the worker closes the connection (r's context
	// ends then) or at the pod's deadline.
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(timeout)*time.Millisecond)
	defer cancel()
	ctx = context.WithValue(ctx, callerLogs{}, true) // refusals are logged below, as [EGRESS]
	resp, err := g.TLS.Open(ctx, t, c)
	var denied *DeniedError
	var code abi.Errno
	switch {
	case errors.As(err, &denied):
		g.refuse(w, r, from, "NetworkPolicy: "+denied.Target+" denied: "+denied.Reason)
		return
	case errors.As(err, &code):
		writeErrno(w, code)
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
func streamEgress(w http.ResponseWriter, resp *Response, limit int) {
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
// namespace/name from r, or "" when it makes it: r must come from a node
// (with a token, any node; without one, the node the pod is bound to), and
// the pod must exist and be bound to a node.
func egressRefusal(nodes *Nodes, r *http.Request, namespace, name string) string {
	if nodes.tokened() {
		if reason := nodes.authenticateNode(r, ""); reason != "" {
			return reason
		}
	}
	if namespace == "" || name == "" {
		return "no pod named"
	}
	o, ok := nodes.Store.Get(store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name})
	if !ok {
		return "no such pod"
	}
	p := o.(*corev1.Pod)
	if p.Spec.NodeName == "" {
		return "the pod is not bound to a node"
	}
	if nodes.tokened() {
		return ""
	}
	return nodes.authenticateNode(r, p.Spec.NodeName)
}

// refuse answers K32_ERR_PERM and logs the refusal, unless one was
// logged less than a second ago.
func (g *Gateway) refuse(w http.ResponseWriter, r *http.Request, from, reason string) {
	if g.Logf != nil && g.refusals.AllowAt(lograte.Now(g.LogClock)) {
		address := r.RemoteAddr
		if a := remoteAddr(r); a.IsValid() {
			address = a.String()
		}
		g.Logf("[EGRESS] gateway refused %s (pod %s): %s", address, from, reason)
	}
	writeErrno(w, abi.ErrPerm)
}

// readEgressRequest reads the pod's request from r's abi.EgressContentType body:
// an https:// URL outside the cluster in its request line, its headers,
// and the rest as its body.
func readEgressRequest(w http.ResponseWriter, r *http.Request, from, namespace string, limit int) (pod.Call, Target, bool) {
	br := bufio.NewReader(http.MaxBytesReader(w, r.Body, egressMaxBody))
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return pod.Call{}, Target{}, false
	}
	method, rest, ok1 := strings.Cut(line, " ")
	url, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !strings.HasPrefix(proto, "HTTP/1.") || !strings.HasPrefix(url, "https://") {
		return pod.Call{}, Target{}, false
	}
	header, err := tp.ReadMIMEHeader()
	if err != nil {
		return pod.Call{}, Target{}, false
	}
	body, err := io.ReadAll(br)
	if err != nil {
		return pod.Call{}, Target{}, false
	}
	t, err := ParseTarget(url, namespace)
	if err != nil || t.Kind != OutsideTarget || t.Scheme != "https" {
		return pod.Call{}, Target{}, false
	}
	c := pod.Call{From: from, Method: method, URL: url, Header: http.Header(header), Body: body, RespCap: limit}
	return c, t, true
}

// queryInt reads a decimal query value, def when absent.
func queryInt(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	return strconv.Atoi(v)
}
