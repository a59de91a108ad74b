package nodehop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// node is a pod server on loopback that counts the connections made to it.
type node struct {
	*httptest.Server
	conns atomic.Int32
}

func startNode(t *testing.T, h http.HandlerFunc) *node {
	t.Helper()
	n := &node{Server: httptest.NewUnstartedServer(h)}
	n.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.conns.Add(1)
		}
	}
	n.Start()
	t.Cleanup(n.Close)
	return n
}

func (n *node) addr() string { return n.Listener.Addr().String() }

// get sends GET target to addr and reads the whole answer.
func get(t *testing.T, p *Pool, addr, target string) (int, string, error) {
	t.Helper()
	resp, err := p.Do(context.Background(), addr, &Request{Method: "GET", Target: target, Host: "example.test", Pod: "default/p"})
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// "The controller ... proxies the request over HTTP/1.1 keep-alive to the
// pod's node" (docs/nodes.md): sequential requests to one node share one
// connection, each written as net/http's client would, with abi.HeaderPod.
func TestSequentialRequestsToANodeShareOneConnection(t *testing.T) {
	n := startNode(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var names []string
		for k := range r.Header {
			names = append(names, k)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "%s %s host=%s pod=%s len=%d body=%q x=%q fields=%s", r.Method, r.RequestURI, r.Host,
			r.Header.Get(abi.HeaderPod), r.ContentLength, b, r.Header.Values("X-Set"), strings.Join(names, ","))
	})
	p := NewPool()
	for i := range 3 {
		status, body, err := get(t, p, n.addr(), fmt.Sprintf("/a?i=%d", i))
		if want := fmt.Sprintf(`GET /a?i=%d host=example.test pod=default/p len=0 body="" x=[] fields=X-Kube32-Pod`, i); err != nil || status != 200 || body != want {
			t.Fatalf("GET %d: %d %q %v, want 200 %q", i, status, body, err, want)
		}
	}
	// A body, hop-by-hop fields (and those Connection names) left out, a
	// client's abi.HeaderPod replaced, Set fields in place of Header's.
	resp, err := p.Do(context.Background(), n.addr(), &Request{Method: "POST", Target: "/b", Host: "example.test", Pod: "default/p",
		Header: http.Header{"Connection": {"X-Hop"}, "X-Hop": {"1"}, "Keep-Alive": {"1"}, "Upgrade": {"h2c"}, "Te": {"gzip"},
			"Proxy-Authorization": {"x"}, abi.HeaderPod: {"default/other"}, "X-Set": {"client"}, "Content-Length": {"99"}},
		Set:  []Field{{Name: "X-Set", Value: "proxy"}},
		Body: strings.NewReader("hello"), ContentLength: 5})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `POST /b host=example.test pod=default/p len=5 body="hello" x=["proxy"] fields=Content-Length,X-Kube32-Pod,X-Set`; err != nil || string(b) != want {
		t.Errorf("POST: %q %v, want %q", b, err, want)
	}
	// No Host: the node's address, as net/http sends it.
	resp, err = p.Do(context.Background(), n.addr(), &Request{Method: "GET", Target: "/c", Pod: "default/p"})
	if err != nil {
		t.Fatal(err)
	}
	b, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "GET /c host=" + n.addr() + " "; err != nil || !strings.HasPrefix(string(b), want) {
		t.Errorf("GET without Host: %q %v, want %q...", b, err, want)
	}
	if c := n.conns.Load(); c != 1 {
		t.Errorf("%d connections to the node, want 1 kept alive", c)
	}
}

// A connection the node closed while it lay idle is replaced before the
// request is written to it: the request is answered, on a new connection,
// even a POST, which is never sent twice.
func TestConnectionClosedWhileIdleIsReplaced(t *testing.T) {
	n := startNode(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Method+" ok") })
	p := NewPool()
	for i := range 3 {
		resp, err := p.Do(context.Background(), n.addr(), &Request{Method: "POST", Target: "/", Host: "x", Pod: "default/p"})
		if err != nil {
			t.Fatalf("POST %d: %v", i, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != "POST ok" {
			t.Fatalf("POST %d: %q %v", i, b, err)
		}
		n.CloseClientConnections() // the node closes its idle connection
	}
	if c := n.conns.Load(); c != 3 {
		t.Errorf("%d connections to the node, want 3: one per request", c)
	}
}

// rawNode answers each request on a connection with answer(i), i counting
// the node's requests from 0; an empty answer closes the connection
// without one, an answer starting with "!" closes it after the rest.
func rawNode(t *testing.T, answer func(i int) string) string {
	return rawNodeOn(t, listen(t), answer)
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// rawNodeOn is rawNode on l.
func rawNodeOn(t *testing.T, l net.Listener, answer func(i int) string) string {
	t.Helper()
	testhttp.Scripted(t, l, answer)
	return l.Addr().String()
}

// A reused connection that ends before any byte of the answer (the node
// closed it as the request went out) is retried once on a new connection
// for a request safe to repeat; one that is not safe to repeat fails, as
// sent.
func TestConnectionEndedBeforeAnswerRetriesOnlyRepeatableRequests(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	addr := rawNode(t, func(i int) string {
		if i == 1 || i == 4 {
			return "" // the second request on the first connection, and later the POST's
		}
		return ok
	})
	p := NewPool()
	for i := range 2 {
		if status, body, err := get(t, p, addr, "/"); err != nil || status != 200 || body != "ok" {
			t.Fatalf("GET %d: %d %q %v", i, status, body, err)
		}
	}
	// Request 3 primes a connection; the POST (request 4) finds it ended.
	if status, _, err := get(t, p, addr, "/"); err != nil || status != 200 {
		t.Fatalf("GET: %d %v", status, err)
	}
	_, err := p.Do(context.Background(), addr, &Request{Method: "POST", Target: "/", Host: "x", Pod: "default/p"})
	if err == nil {
		t.Fatal("POST on a connection that ended: no error")
	}
	if _, notSent := errors.AsType[*NotSentError](err); notSent {
		t.Errorf("POST: %v is a NotSentError, but the request was written", err)
	}
}

// A GET whose reused connection ended unanswered, as its node went down,
// fails with a NotSentError when the node cannot be reached again: it was
// not acted on, and another pod may take it (docs/nodes.md).
func TestRepeatableRequestToANodeGoneDownIsNotSent(t *testing.T) {
	l := listen(t)
	addr := rawNodeOn(t, l, func(i int) string {
		if i == 1 {
			l.Close() // the node goes down, its open connection with it
			return ""
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	})
	p := NewPool()
	if status, _, err := get(t, p, addr, "/"); err != nil || status != 200 {
		t.Fatalf("GET: %d %v", status, err)
	}
	_, _, err := get(t, p, addr, "/")
	if _, notSent := errors.AsType[*NotSentError](err); !notSent {
		t.Errorf("GET to a node gone down: %v, want a NotSentError", err)
	}
}

// A node that cannot be reached fails with a NotSentError: no byte of the
// request left, so another pod may take it (docs/nodes.md).
func TestUnreachableNodeIsNotSent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, _, err = get(t, NewPool(), addr, "/")
	if _, notSent := errors.AsType[*NotSentError](err); !notSent {
		t.Errorf("GET to a closed port: %v, want a NotSentError", err)
	}
}

// An answer cut before its end fails its read, and its connection is
// closed, not kept for the next request.
func TestAnswerCutMidwayIsNotReused(t *testing.T) {
	addr := rawNode(t, func(i int) string {
		if i == 0 {
			return "!HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ncut" // then the connection ends
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	})
	p := NewPool()
	if _, body, err := get(t, p, addr, "/"); !errors.Is(err, io.ErrUnexpectedEOF) || body != "cut" {
		t.Fatalf("cut answer: %q %v, want %q and io.ErrUnexpectedEOF", body, err, "cut")
	}
	if p.count != 0 {
		t.Errorf("%d idle connections after a cut answer, want 0", p.count)
	}
	if status, body, err := get(t, p, addr, "/"); err != nil || status != 200 || body != "ok" {
		t.Errorf("next GET: %d %q %v", status, body, err)
	}
}

// A request that cannot be written as HTTP is refused before anything is
// sent.
func TestInvalidRequestIsRefusedUnsent(t *testing.T) {
	n := startNode(t, func(w http.ResponseWriter, r *http.Request) {})
	for _, req := range []Request{
		{Method: "GE T", Target: "/", Host: "x", Pod: "default/p"},
		{Method: "GET", Target: "/a b", Host: "x", Pod: "default/p"},
		{Method: "GET", Target: "/", Host: "x\r\nX-Evil: 1", Pod: "default/p"},
		{Method: "GET", Target: "/", Host: "x", Pod: "default/p", Header: http.Header{"X-A": {"1\r\nX-Evil: 1"}}},
		{Method: "POST", Target: "/", Host: "x", Pod: "default/p", Body: strings.NewReader("ab"), ContentLength: 3},
		{Method: "GET", Target: "/", Host: "x"},
	} {
		_, err := NewPool().Do(context.Background(), n.addr(), &req)
		if _, notSent := errors.AsType[*NotSentError](err); !notSent || !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want a NotSentError of ErrInvalid", req, err)
		}
	}
	if c := n.conns.Load(); c != 0 {
		t.Errorf("%d connections made for invalid requests", c)
	}
}
