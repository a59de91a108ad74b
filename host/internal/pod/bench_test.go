package pod

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// BenchmarkServeHTTP compares one request through a tiny C pod (k32_req_path
// in k32_handle, "hello\n" back) with a plain http.HandlerFunc doing the same
// work, side by side: the difference is the cost of the sandbox.
func BenchmarkServeHTTP(b *testing.B) {
	p := startPod(b, onePage(b, "probe"), nil)
	plain := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() == "/hello" {
			w.Write([]byte("hello\n"))
			return
		}
		http.NotFound(w, r)
	})
	for _, bench := range []struct {
		name string
		h    http.Handler
	}{{"pod", p}, {"handlerfunc", plain}} {
		b.Run(bench.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/hello", nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				bench.h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkServeEcho is one request through the probe's /echo route, which
// reads the method, path, query, a header, the body and a variable, queues
// a header and writes the answer: the host functions a typical k32_handle
// calls, with their allocations per request.
func BenchmarkServeEcho(b *testing.B) {
	p := startPod(b, onePage(b, "probe"), func(c *Config) {
		c.Env = []EnvVar{{"GREETING", "hello"}}
	})
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/echo?a=1", strings.NewReader("hello, kube32"))
		req.Header.Set("X-Test", "v1")
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkServeEchoOnAConnection is BenchmarkServeEcho over a keep-alive
// loopback connection to the node's server (httplimit's), where the answer
// takes the path of the Ingress and the pod port (clientWriter, the
// spool), with one client that reads at once.
func BenchmarkServeEchoOnAConnection(b *testing.B) {
	p := startPod(b, onePage(b, "probe"), func(c *Config) {
		c.Env = []EnvVar{{"GREETING", "hello"}}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := httplimit.NewConns(16).NewServer(p, httplimit.Limits{})
	go srv.Serve(l)
	b.Cleanup(func() { srv.Close() })
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	const req = "POST /echo?a=1 HTTP/1.1\r\nHost: x\r\nX-Test: v1\r\nContent-Length: 13\r\n\r\nhello, kube32"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := io.WriteString(conn, req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
