package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// The Ingress port and the pod port of every node are served by fasthttp
// (docs/design.md, "Which server serves which port, and why?"). These
// tests cover, on both with real C pods and raw connections, what a server
// of another make could do differently from net/http: smuggling attempts,
// pipelining, Expect: 100-continue, HTTP/1.0, HEAD, answers of unknown
// length, long heads and a client that leaves mid-answer.

// dataPort is a port of the data plane and how its requests reach the
// probe pod and the respflood pod (each a head line, or lines, ending in
// CRLF).
type dataPort struct {
	name, addr   string
	probe, flood string
}

// startDataPorts runs a control plane and one worker with the probe pod
// "wprobe" and the respflood pod "wflood" on the worker, behind the
// Ingress for hosts wprobe.test and wflood.test, and returns the two ways
// to them: the Ingress (which proxies to the worker) and the worker's pod
// port.
func startDataPorts(t *testing.T) (*Cluster, []dataPort) {
	t.Helper()
	dir := t.TempDir()
	wasmDir := filepath.Join(dir, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"probe", "respflood"} {
		if err := os.WriteFile(filepath.Join(wasmDir, name+".wasm"), testpods.Fixture(t, name, 65536), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startReady(t, Options{Images: os.DirFS(dir), Nodes: 2, HandlerTimeout: 5 * time.Second,
		Objects: []manifest.Object{
			{Obj: pinnedPod("wprobe", "wprobe", w1, "probe", corev1.Container{})},
			{Obj: pinnedPod("wflood", "wflood", w1, "respflood", corev1.Container{})},
			svc("wprobe"), svc("wflood"), hostIngress("wprobe.test", "wprobe"), hostIngress("wflood.test", "wflood"),
		}}, "wprobe", "wflood")
	return c, []dataPort{
		{name: "ingress", addr: strings.TrimPrefix(c.IngressURL(), "http://"),
			probe: "Host: wprobe.test\r\n", flood: "Host: wflood.test\r\n"},
		{name: "pod port", addr: strings.TrimPrefix(c.Workers[0].PodURL(), "http://"),
			probe: "Host: x\r\n" + abi.HeaderPod + ": default/wprobe\r\n", flood: "Host: x\r\n" + abi.HeaderPod + ": default/wflood\r\n"},
	}
}

// eachPort runs f on each port of the data plane as a subtest.
func eachPort(t *testing.T, f func(t *testing.T, p dataPort)) {
	_, ports := startDataPorts(t)
	for _, p := range ports {
		t.Run(p.name, func(t *testing.T) { f(t, p) })
	}
}

// portConn is a connection to a port of the data plane with a reader of its answers.
type portConn struct {
	net.Conn
	r *bufio.Reader
}

func dialPort(t *testing.T, addr string) *portConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	return &portConn{Conn: c, r: bufio.NewReader(c)}
}

func (c *portConn) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}

// answer reads one answer to a request of method.
func (c *portConn) answer(t *testing.T, method string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(c.r, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading an answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading an answer's body: %v", err)
	}
	return resp, string(b)
}

// closed reports whether the server has closed the connection, with
// nothing more to read.
func (c *portConn) closed() error {
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, c.r)
	switch {
	case n > 0:
		return fmt.Errorf("%d more bytes", n)
	case err != nil:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return errors.New("the connection is still open")
		}
	}
	return nil
}

// A request with both Content-Length and Transfer-Encoding: chunked is
// read by its chunks, the Content-Length ignored (RFC 9112, section 6.3),
// and the connection closes after its answer: what follows the chunked
// body, a smuggled request, is never read as a request.
func TestDataPortRefusesSmuggling(t *testing.T) {
	eachPort(t, func(t *testing.T, p dataPort) {
		addr := p.addr
		for _, req := range []struct{ framing, chunks, body string }{
			{"Content-Length: 40\r\nTransfer-Encoding: chunked\r\n", "3\r\nabc\r\n0\r\n\r\n", "abc"},
			{"Transfer-Encoding: chunked\r\nContent-Length: 40\r\n", "3\r\nabc\r\n0\r\n\r\n", "abc"},
			{"Content-Length: 40\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n", ""}, // an empty body
		} {
			framing := req.framing
			c := dialPort(t, addr)
			c.send(t, "POST /echo HTTP/1.1\r\n"+p.probe+framing+"\r\n"+
				req.chunks+
				"GET /hello HTTP/1.1\r\n"+p.probe+"\r\n")
			resp, body := c.answer(t, "POST")
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, "body="+req.body+"\n") {
				t.Fatalf("%q: the chunked body: %d %q, want 200 with body=%s", framing, resp.StatusCode, body, req.body)
			}
			if err := c.closed(); err != nil {
				t.Fatalf("after a request with %q and %q: %v, want the connection closed", framing, req.chunks, err)
			}
		}
	})
}

// Pipelined requests each get their answer, in order, on one connection.
func TestDataPortAnswersPipelinedRequestsInOrder(t *testing.T) {
	eachPort(t, func(t *testing.T, p dataPort) {
		addr := p.addr
		c := dialPort(t, addr)
		var reqs strings.Builder
		for i := range 5 {
			fmt.Fprintf(&reqs, "GET /echo?n=%d HTTP/1.1\r\n%s\r\n", i, p.probe)
		}
		reqs.WriteString("POST /echo?n=5 HTTP/1.1\r\n" + p.probe + "Content-Length: 4\r\n\r\nbody")
		c.send(t, reqs.String())
		for i := range 6 {
			method := "GET"
			if i == 5 {
				method = "POST"
			}
			resp, body := c.answer(t, method)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, fmt.Sprintf("query=n=%d\n", i)) {
				t.Fatalf("answer %d: %d %q", i, resp.StatusCode, body)
			}
			if i == 5 && !strings.Contains(body, "body=body\n") {
				t.Fatalf("answer %d: %q, want body=body", i, body)
			}
		}
	})
}

// "Expect: 100-continue" is answered 100 Continue before the body is
// sent; a body past httplimit.MaxBody is refused with 413 at once, its
// body never asked for (docs/serve.md, "Hostile clients").
func TestDataPortExpectContinue(t *testing.T) {
	eachPort(t, func(t *testing.T, p dataPort) {
		addr := p.addr
		c := dialPort(t, addr)
		c.send(t, "POST /echo HTTP/1.1\r\n"+p.probe+"Expect: 100-continue\r\nContent-Length: 3\r\n\r\n")
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil || resp.StatusCode != http.StatusContinue {
			t.Fatalf("before the body: %v %v, want 100 Continue", resp, err)
		}
		c.send(t, "abc")
		resp, body := c.answer(t, "POST")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "body=abc\n") {
			t.Fatalf("after the body: %d %q", resp.StatusCode, body)
		}

		c = dialPort(t, addr)
		c.send(t, fmt.Sprintf("POST /echo HTTP/1.1\r\n%sExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", p.probe, httplimit.MaxBody+1))
		resp, body = c.answer(t, "POST")
		if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Content-Type") != "application/json" ||
			!strings.Contains(body, `"error"`) {
			t.Fatalf("a body too large: %d %q %q, want 413 with a JSON error", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})
}

// An HTTP/1.0 client gets answers it can read: with a Content-Length, or,
// for an answer of unknown length, unchunked and ended by the close.
func TestDataPortHTTP10(t *testing.T) {
	eachPort(t, func(t *testing.T, p dataPort) {
		addr := p.addr
		c := dialPort(t, addr)
		c.send(t, "GET /echo?q HTTP/1.0\r\n"+p.probe+"\r\n")
		resp, body := c.answer(t, "GET")
		if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(body)) || !strings.Contains(body, "query=q\n") {
			t.Fatalf("a small answer: %d length %d %q", resp.StatusCode, resp.ContentLength, body)
		}

		const size = 200_000
		c = dialPort(t, addr)
		c.send(t, fmt.Sprintf("GET /big?%d HTTP/1.0\r\n%s\r\n", size, p.flood))
		resp, body = c.answer(t, "GET")
		if resp.StatusCode != http.StatusOK || len(resp.TransferEncoding) != 0 || len(body) != size || strings.Trim(body, "x") != "" {
			t.Fatalf("an answer of unknown length: %d %v, %d bytes, want %d bytes of x, unchunked",
				resp.StatusCode, resp.TransferEncoding, len(body), size)
		}
	})
}

// HEAD gets the head of the answer GET would get and no body, and the
// connection serves the next request.
func TestDataPortHead(t *testing.T) {
	eachPort(t, func(t *testing.T, p dataPort) {
		addr := p.addr
		c := dialPort(t, addr)
		c.send(t, "HEAD /hello HTTP/1.1\r\n"+p.probe+"\r\nGET /hello HTTP/1.1\r\n"+p.probe+"\r\n")
		resp, body := c.answer(t, "HEAD")
		if resp.StatusCode != http.StatusOK || body != "" {
			t.Fatalf("HEAD: %d %q", resp.StatusCode, body)
		}
		resp, body = c.answer(t, "GET")
		if resp.StatusCode != http.StatusOK || body != "hello\n" {
			t.Fatalf("GET after HEAD: %d %q", resp.StatusCode, body)
		}
	})
}

// A pod's answer of unknown length, larger than the node keeps in memory
// before it sends, goes chunked and whole; the connection serves the next
// request.
func TestDataPortChunkedAnswer(t *testing.T) {
	eachPort(t, func(t *testing.T, p dataPort) {
		addr := p.addr
		c := dialPort(t, addr)
		const size = 3<<20 + 17
		c.send(t, fmt.Sprintf("GET /big?%d HTTP/1.1\r\n%s\r\n", size, p.flood))
		resp, body := c.answer(t, "GET")
		if resp.StatusCode != http.StatusOK || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" ||
			len(body) != size || strings.Trim(body, "x") != "" {
			t.Fatalf("a large answer: %d %v, %d bytes, want %d bytes of x, chunked", resp.StatusCode, resp.TransferEncoding, len(body), size)
		}
		c.send(t, "GET /next HTTP/1.1\r\n"+p.flood+"\r\n")
		if resp, body := c.answer(t, "GET"); resp.StatusCode != http.StatusOK || body != "ok\n" {
			t.Fatalf("the next request: %d %q", resp.StatusCode, body)
		}
	})
}

// A head with a very long line reaches the pod, as on net/http, up to
// httplimit.MaxHeaderBytes; a longer head is answered 431 with a JSON
// error.
func TestDataPortLongHeaderLine(t *testing.T) {
	eachPort(t, func(t *testing.T, p dataPort) {
		addr := p.addr
		c := dialPort(t, addr)
		long := strings.Repeat("y", 200<<10)
		c.send(t, "GET /echo HTTP/1.1\r\n"+p.probe+"X-Test: "+long+"\r\n\r\n")
		resp, body := c.answer(t, "GET")
		// The probe copies x-test into a 4 KiB buffer and writes what fits.
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "x-test="+long[:4096]+"\n") {
			t.Fatalf("a 200 KiB header line: %d %q", resp.StatusCode, body[:min(len(body), 300)])
		}

		c = dialPort(t, addr)
		c.send(t, "GET /echo HTTP/1.1\r\n"+p.probe+"X-Test: "+strings.Repeat("y", httplimit.MaxHeaderBytes+4<<10)+"\r\n\r\n")
		resp, body = c.answer(t, "GET")
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("a head over %d bytes: %d %q", httplimit.MaxHeaderBytes, resp.StatusCode, body)
		}
	})
}

// A client that closes its connection in the middle of an answer costs
// the pod nothing: its callback ends as it decides, it is not restarted,
// and the next request is answered.
func TestDataPortClientLeavesMidAnswer(t *testing.T) {
	cl, ports := startDataPorts(t)
	for _, p := range ports {
		t.Run(p.name, func(t *testing.T) {
			addr := p.addr
			pod, ok := cl.Workers[0].Kubelet.Pod("default", "wflood")
			if !ok {
				t.Fatal("no pod wflood")
			}
			logsBefore := len(pod.Logs())
			c := dialPort(t, addr)
			c.send(t, fmt.Sprintf("GET /big?%d HTTP/1.1\r\n%s\r\n", 64<<20, p.flood))
			if _, err := io.ReadFull(c.r, make([]byte, 100<<10)); err != nil {
				t.Fatal(err)
			}
			c.Close()
			testenv.EventuallyNil(t, "the pod to end its answer", func() error {
				for _, l := range pod.Logs()[logsBefore:] {
					if strings.HasPrefix(l.Text, "big wrote=") {
						return nil
					}
				}
				return errors.New("not yet")
			})
			c = dialPort(t, addr)
			c.send(t, "GET /next HTTP/1.1\r\n"+p.flood+"\r\n")
			if resp, body := c.answer(t, "GET"); resp.StatusCode != http.StatusOK || body != "ok\n" {
				t.Fatalf("the next request: %d %q", resp.StatusCode, body)
			}
			if st := pod.Status(); st.RestartCount != 0 {
				t.Fatalf("the pod was restarted %d times", st.RestartCount)
			}
		})
	}
}
