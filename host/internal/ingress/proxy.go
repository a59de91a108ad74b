package ingress

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/nodehop"
	svcs "github.com/kube32/kube32/host/internal/service"
)

// nodePool holds the connections to the workers' pod servers, shared with
// the nodes' cross-node calls.
var nodePool = nodehop.Shared

// proxyToNode sends r to pod b on its worker node over nodePool, with
// abi.HeaderPod naming the pod and the X-Forwarded-* headers set, and
// streams the answer back, as net/http/httputil.ReverseProxy would. It
// returns an error, having written nothing, when the request failed
// before a byte of it was sent (the node is down) or the node says the
// pod does not run there (abi.HeaderPodMissing: gone, or terminating):
// another pod may take it. Any later failure is answered 502 here, or
// ends the client's connection once the answer has begun.
func proxyToNode(w http.ResponseWriter, r *http.Request, b svcs.Backend) error {
	req, err := hopRequest(w, r, b)
	if err != nil {
		return err
	}
	resp, err := nodePool.Do(r.Context(), b.Addr, req)
	if err != nil {
		if _, notSent := errors.AsType[*nodehop.NotSentError](err); notSent && r.Context().Err() == nil {
			// The client learns which node, not its address.
			return fmt.Errorf("node %s of pod %s is unreachable", b.Node, b.ID())
		}
		writeError(w, http.StatusBadGateway, map[string]string{"error": "backend unavailable", "pod": b.ID(), "node": b.Node,
			"reason": "the connection to the pod's node failed during the request"})
		return nil
	}
	defer resp.Body.Close()
	if podMissing(resp, b) {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096)) // the connection goes back to the pool
		return fmt.Errorf("pod %s no longer runs on node %s", b.ID(), b.Node)
	}
	guarded, lift := guardStalls(w, r)
	defer lift()
	if err := copyAnswer(guarded, resp); err != nil {
		abortAnswer()
	}
	return nil
}

// podMissing reports whether resp is pod b's node saying that b does not
// run there (gone, or terminating).
func podMissing(resp *http.Response, b svcs.Backend) bool {
	return resp.StatusCode == http.StatusNotFound && resp.Header.Get(abi.HeaderPodMissing) == b.ID()
}

// hopRequest is r as it goes to pod b: the client's header without the
// forwarding fields it sent (X-Forwarded-*, Forwarded) and with the
// proxy's own, the query cleaned of what does not parse, the body from
// r.GetBody: in memory (httplimit.InMemory, which serviceBackend makes
// sure of), for another pod to take it if this one cannot.
func hopRequest(w http.ResponseWriter, r *http.Request, b svcs.Backend) (*nodehop.Request, error) {
	req := &nodehop.Request{Method: r.Method, Target: requestTarget(r.URL), Host: r.Host, Pod: b.ID(), Header: r.Header,
		ContentLength: r.ContentLength}
	clientIP, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		clientIP = "" // only removes the client's X-Forwarded-For
	}
	proto := "http"
	if r.TLS != nil {
		proto = "https"
	}
	req.Set = []nodehop.Field{{Name: "Forwarded"}, {Name: "X-Forwarded-For", Value: clientIP},
		{Name: "X-Forwarded-Host", Value: r.Host}, {Name: "X-Forwarded-Proto", Value: proto}}
	// Tell a pod that cares that trailers are supported, when the client
	// said so (ReverseProxy does).
	if httpguts.HeaderValuesContainsToken(r.Header["Te"], "trailers") {
		req.Set = append(req.Set, nodehop.Field{Name: "Te", Value: "trailers"})
	}
	if r.GetBody != nil && r.ContentLength > 0 {
		body, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		req.Body = body
	} else {
		req.ContentLength = 0
	}
	req.Interim = func(code int, h http.Header) {
		out := w.Header()
		for k, vv := range h {
			out[k] = vv
		}
		w.WriteHeader(code)
		for k := range h {
			delete(out, k)
		}
	}
	return req, nil
}

// requestTarget is u's path and query as ReverseProxy sends them: the
// query as the client wrote it unless part of it does not parse, when it
// is sent re-encoded without that part.
func requestTarget(u *url.URL) string {
	target := u.EscapedPath()
	if target == "" {
		target = "/"
	}
	if u.ForceQuery || u.RawQuery != "" {
		target += "?" + cleanQuery(u.RawQuery)
	}
	return target
}

// cleanQuery drops from a query the parameters that do not parse (a ';'
// or a bad escape), which a pod might read differently from the proxy.
func cleanQuery(q string) string {
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case ';':
			v, _ := url.ParseQuery(q)
			return v.Encode()
		case '%':
			if i+2 >= len(q) || !ishex(q[i+1]) || !ishex(q[i+2]) {
				v, _ := url.ParseQuery(q)
				return v.Encode()
			}
			i += 2
		}
	}
	return q
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// copyAnswer writes resp to w: its header (the hop-by-hop fields are gone)
// with its trailers announced, then its body, each piece flushed to the
// client as it comes for an answer of unknown length or an event stream.
// It fails when the body could not be read or written to the end.
func copyAnswer(w *stallWriter, resp *http.Response) error {
	h := w.Header()
	for k, vv := range resp.Header {
		if old := h[k]; len(old) > 0 {
			h[k] = append(old, vv...)
		} else {
			h[k] = vv // resp's own, read for this request alone
		}
	}
	announced := len(resp.Trailer)
	if announced > 0 {
		names := make([]string, 0, announced)
		for k := range resp.Trailer {
			names = append(names, k)
		}
		h.Add("Trailer", strings.Join(names, ", "))
	}
	w.WriteHeader(resp.StatusCode)
	stream := resp.ContentLength < 0 || httplimit.IsEventStream(resp.Header)
	if stream {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	buf := copyBuffers.Get()
	defer copyBuffers.Put(buf)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			if stream {
				if err := w.Flush(); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	if len(resp.Trailer) > 0 {
		// Chunked, so the trailers can follow the body.
		if err := w.Flush(); err != nil {
			return err
		}
		if len(resp.Trailer) == announced {
			for k, vv := range resp.Trailer {
				h[k] = append(h[k], vv...)
			}
		} else {
			for k, vv := range resp.Trailer {
				h[http.TrailerPrefix+k] = append(h[http.TrailerPrefix+k], vv...)
			}
		}
	}
	return nil
}

// copyBuffers are the buffers for copying answers, kept between requests
// rather than made for each.
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
