package ingress

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"sync/atomic"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/call"
	svcs "github.com/kube32/kube32/host/internal/service"
)

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

// workerProxy is the one reverse proxy of every request to a pod on a
// worker; the pod of each travels in the request's context (proxied).
var workerProxy = &httputil.ReverseProxy{
	Rewrite:      rewriteToPod,
	Transport:    nodePool,
	BufferPool:   copyBuffers,
	ErrorHandler: proxyFailed,
}

// proxied is one request to a pod on a worker: the pod, whether any byte
// of the request was written to the connection it was last given, and
// the error proxyToNode returns when none was.
type proxied struct {
	pod     svcs.Backend
	trace   httptrace.ClientTrace
	conn    atomic.Pointer[countingConn]
	start   atomic.Int64
	notSent error
}

type proxiedKey struct{}

func (p *proxied) gotConn(info httptrace.GotConnInfo) {
	if c, ok := info.Conn.(*countingConn); ok {
		p.start.Store(c.written.Load())
		p.conn.Store(c)
	}
}

func (p *proxied) sentAny() bool {
	c := p.conn.Load()
	return c != nil && c.written.Load() > p.start.Load()
}

func proxiedOf(r *http.Request) *proxied { return r.Context().Value(proxiedKey{}).(*proxied) }

// rewriteToPod addresses the request to its pod's node, with
// abi.HeaderPod naming the pod and the X-Forwarded-* headers set.
func rewriteToPod(pr *httputil.ProxyRequest) {
	p := proxiedOf(pr.In)
	pr.Out.URL.Scheme, pr.Out.URL.Host = "http", p.pod.Addr
	pr.Out.Host = pr.In.Host
	pr.Out.Header[abi.HeaderPod] = []string{p.pod.ID()}
	pr.SetXForwarded()
}

// proxyFailed answers 502 a request that failed once some of it was sent;
// one that failed before is left unanswered for proxyToNode's caller to
// send to another pod.
func proxyFailed(w http.ResponseWriter, r *http.Request, _ error) {
	p := proxiedOf(r)
	if !p.sentAny() && r.Context().Err() == nil {
		p.notSent = fmt.Errorf("node %s of pod %s is unreachable", p.pod.Node, p.pod.ID())
		return
	}
	writeError(w, http.StatusBadGateway, map[string]string{"error": "backend unavailable", "pod": p.pod.ID(), "node": p.pod.Node,
		"reason": "the connection to the pod's node failed during the request"})
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
	p := &proxied{pod: b}
	p.trace.GotConn = p.gotConn
	ctx := context.WithValue(httptrace.WithClientTrace(r.Context(), &p.trace), proxiedKey{}, p)
	guarded, lift := guardStalls(w, r)
	defer lift()
	workerProxy.ServeHTTP(guarded, r.WithContext(ctx))
	return p.notSent
}

// copyBuffers are the proxy's buffers for copying answers, kept between
// requests rather than made for each.
var copyBuffers = bufferPool(make(chan []byte, 256))

// bufferPool is a bounded free list of 32 KiB buffers: a channel, so that
// putting one back allocates nothing.
type bufferPool chan []byte

func (p bufferPool) Get() []byte {
	select {
	case b := <-p:
		return b
	default:
		return make([]byte, 32<<10)
	}
}

func (p bufferPool) Put(b []byte) {
	select {
	case p <- b:
	default:
	}
}
