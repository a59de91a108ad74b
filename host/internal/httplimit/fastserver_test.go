package httplimit

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveFast runs h on a loopback port as a FastServer within conns and
// returns its address.
func serveFast(t *testing.T, conns *Conns, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := conns.NewFastServer(h, Limits{}, nil)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Shutdown(t.Context()) })
	return l.Addr().String()
}

// As on net/http: a handler that panics has its connection cut, without
// an answer or with the part streamed so far, and the server goes on; a
// handler that writes less than its Content-Length has its answer cut.
func TestFastServerCutsBrokenAnswers(t *testing.T) {
	addr := serveFast(t, NewConns(16), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/panic":
			panic("a bug")
		case "/panic-streaming":
			w.Write([]byte(strings.Repeat("x", 2*fastAnswerBuffer)))
			panic("a bug")
		case "/short":
			w.Header().Set("Content-Length", "10")
			w.Write([]byte("12345"))
		default:
			w.Write([]byte("ok"))
		}
	}))
	for _, path := range []string{"/panic", "/panic-streaming", "/short"} {
		c := dial(t, addr)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := c.get(t, path)
		if err != nil {
			continue // cut before the head
		}
		if b, err := io.ReadAll(resp.Body); err == nil {
			t.Errorf("%s: a whole answer, %d %d bytes", path, resp.StatusCode, len(b))
		}
	}
	if got := dial(t, addr).mustGet(t, "/"); got != "ok" {
		t.Fatalf("after the broken answers: %q", got)
	}
}
