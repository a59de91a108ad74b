package ingress

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"strconv"
	"sync/atomic"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/call"
	svcs "github.com/kube32/kube32/host/internal/service"
)

// serviceBackend balances requests round-robin over a Service's running
// pods, the Ready ones first; with none it answers 503 with Retry-After
// abi.RetryAfterNoPod. A pod whose node cannot be reached before a byte
// of the request is sent is skipped for the next (docs/nodes.md).
type serviceBackend struct {
	service  string
	backends []svcs.Backend
	next     svcs.RoundRobin
	node     string // the controller's node, whose pods are served in-process
	local    svcs.LocalPods
}

func (b *serviceBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Only nodes set the call chain: a client's would make its pod's calls
	// fail with K32_ERR_LOOP.
	r.Header.Del(abi.HeaderCallChain)
	var unreachable error
	for _, be := range b.order() {
		// The pod runs on the control plane: call its k32_handle in-process.
		if h, ok := b.local.Handler(be.Namespace, be.Name); ok {
			noteBackend(w, be)
			h.ServeHTTP(w, r)
			return
		}
		if be.Node == b.node || be.Addr == "" {
			continue
		}
		// The pod runs on a worker: proxy to its node's pod HTTP server,
		// or on to the next pod if the node cannot be reached.
		if unreachable == nil {
			if err := replayable(r); err != nil {
				writeError(w, http.StatusBadRequest, map[string]string{"error": "request body unreadable", "reason": err.Error()})
				return
			}
		}
		noteBackend(w, be)
		if unreachable = proxyToNode(w, r, be); unreachable == nil {
			return
		}
	}
	if unreachable != nil {
		writeError(w, http.StatusBadGateway, map[string]string{"error": "backend unavailable", "service": b.service,
			"reason": "no pod of the service could be reached: " + unreachable.Error()})
		return
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(abi.RetryAfterNoPod/time.Second)))
	writeError(w, http.StatusServiceUnavailable, map[string]string{"error": "service unavailable", "service": b.service,
		"reason": "the service has no running pod"})
}

// order is the backends to try for one request: the Ready pods from the
// next in the round, then the pods that are running but not Ready (a pod
// of a node gone silent), as a last resort.
func (b *serviceBackend) order() []svcs.Backend {
	if len(b.backends) == 0 {
		return nil
	}
	var ready, notReady []svcs.Backend
	for _, be := range b.backends {
		if be.Ready {
			ready = append(ready, be)
		} else {
			notReady = append(notReady, be)
		}
	}
	out := make([]svcs.Backend, 0, len(b.backends))
	for _, group := range [][]svcs.Backend{ready, notReady} {
		if len(group) > 0 {
			i := b.next.Next(len(group))
			out = append(append(out, group[i:]...), group[:i]...)
		}
	}
	return out
}

// replayable makes r's body one that can be sent again to another pod:
// r.GetBody as the server left it, or the body read into memory.
func replayable(r *http.Request) error {
	if r.GetBody != nil || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return err
	}
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	r.Body, _ = r.GetBody()
	return nil
}

// resolveServiceBackend finds the Service a backend names in namespace and
// the running pods behind the port it names.
func (c *Controller) resolveServiceBackend(namespace string, ref *networkingv1.IngressServiceBackend) (*serviceBackend, error) {
	b := &serviceBackend{service: namespace + "/" + ref.Name, node: c.cfg.Node, local: c.cfg.Local}
	var err error
	port := svcs.PortRef{Name: ref.Port.Name, Number: ref.Port.Number}
	b.backends, err = svcs.Resolve(context.Background(), c.objects, namespace, ref.Name, port)
	return b, err
}

// nodePool is the keep-alive pool of the proxied requests to worker
// nodes; its connections count the bytes written to them, so that a
// failed request tells whether any of it left.
var nodePool = countingPool()

func countingPool() *http.Transport {
	tr := call.NewPool()
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c}, nil
	}
	return tr
}

// countingConn counts the bytes written to a connection.
type countingConn struct {
	net.Conn
	written atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

// sentBytes follows one proxied request: whether any byte of it was
// written to the connection it was last given.
type sentBytes struct {
	conn  atomic.Pointer[countingConn]
	start atomic.Int64
}

func (s *sentBytes) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if c, ok := info.Conn.(*countingConn); ok {
			s.start.Store(c.written.Load())
			s.conn.Store(c)
		}
	}}
}

func (s *sentBytes) any() bool {
	c := s.conn.Load()
	return c != nil && c.written.Load() > s.start.Load()
}

// proxyToNode sends r to pod b on its worker node over the keep-alive
// pool, with abi.HeaderPod naming the pod, and streams the answer back. It
// returns an error, having written nothing, when the request failed
// before a byte of it was sent (the node is down: another pod may take
// it); any later failure is answered 502 here.
func proxyToNode(w http.ResponseWriter, r *http.Request, b svcs.Backend) error {
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return err
		}
		r.Body = body
	}
	var sent sentBytes
	var notSent error
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", b.Addr
			pr.Out.Host = r.Host
			pr.Out.Header.Set(abi.HeaderPod, b.ID())
			pr.SetXForwarded()
		},
		Transport: nodePool,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if !sent.any() && r.Context().Err() == nil {
				notSent = fmt.Errorf("node %s of pod %s is unreachable", b.Node, b.ID())
				return
			}
			writeError(w, http.StatusBadGateway, map[string]string{"error": "backend unavailable", "pod": b.ID(), "node": b.Node,
				"reason": "the connection to the pod's node failed during the request"})
		},
	}
	rp.ServeHTTP(w, r.WithContext(httptrace.WithClientTrace(r.Context(), sent.trace())))
	return notSent
}
