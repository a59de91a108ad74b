package httplimit

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
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

// As on net/http: an interim answer a handler writes (103 Early Hints
// with its Link field) reaches an HTTP/1.1 client before the final one,
// and an answer is dated by the server unless its handler dated it.
func TestFastServerSendsInterimAnswers(t *testing.T) {
	addr := serveFast(t, NewConns(16), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hints":
			w.Header().Set("Link", "</app.js>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
		case "/dated":
			w.Header().Set("Date", handlersDate)
		}
		w.Write([]byte("ok"))
	}))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GET /hints HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\nGET /dated HTTP/1.1\r\nHost: x\r\n\r\n")
	r := bufio.NewReader(c)
	interim, err := http.ReadResponse(r, nil)
	if err != nil || interim.StatusCode != http.StatusEarlyHints || interim.Header.Get("Link") != "</app.js>; rel=preload" {
		t.Fatalf("first: %v %v, want 103 with the Link field", interim, err)
	}
	final, err := http.ReadResponse(r, nil)
	if err != nil || final.StatusCode != http.StatusOK {
		t.Fatalf("then: %v %v, want 200", final, err)
	}
	io.Copy(io.Discard, final.Body)
	plain, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, plain.Body)
	if d, err := http.ParseTime(plain.Header.Get("Date")); err != nil || time.Since(d) > time.Minute {
		t.Fatalf("Date %q (%v), want the server's", plain.Header.Get("Date"), err)
	}
	dated, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := dated.Header.Values("Date"); len(got) != 1 || got[0] != handlersDate {
		t.Fatalf("Date %q, want the handler's %q alone", got, handlersDate)
	}
}

const handlersDate = "Tue, 01 Dec 2026 10:00:00 GMT"

// As on net/http (TestTooLargeBodyIsAnsweredNotReset): a client that
// sends a whole body past MaxBody, then reads, gets the 413, rather than a
// reset from a connection closed while its body was still arriving, which
// would discard the answer before the client read it.
func TestFastServerAnswersATooLargeBodyNotReset(t *testing.T) {
	addr := serveFast(t, NewConns(100), echoLen)
	for i := range 10 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", 8*MaxBody)
		c.Write([]byte(strings.Repeat("x", 8*MaxBody))) // may fail once the server closes: the answer is still to be read
		time.Sleep(50 * time.Millisecond)               // the server's close has come by now
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("post %d: %v %v, want 413", i, resp, err)
		}
	}
}

// As on net/http: a Shutdown that comes before Serve has begun stops it,
// so that a node stopped right after it started does not serve on.
func TestFastServerShutdownBeforeServe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewConns(16).NewFastServer(http.NotFoundHandler(), Limits{}, nil)
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	select {
	case err := <-served:
		if err != http.ErrServerClosed {
			t.Fatalf("Serve after Shutdown: %v, want http.ErrServerClosed", err)
		}
	case <-time.After(10 * time.Second):
		l.Close()
		t.Fatal("Serve after Shutdown still serves")
	}
}

// A streamed answer goes on the connection itself, and the connection
// then serves its next request (fastExchange): pipelined requests whose
// answers stream, chunked or with their length, each get their whole
// answer in order and nothing between them; an HTTP/1.0 client keeps its
// connection for an answer of known length, and one of unknown length
// ends with the connection, as on net/http.
func TestFastServerStreamsOnTheConnectionAndServesOn(t *testing.T) {
	big := strings.Repeat("b", 3*fastAnswerBuffer)
	addr := serveFast(t, NewConns(16), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flushed":
			w.Write([]byte("first,"))
			w.(http.Flusher).Flush()
			w.Write([]byte("second"))
		case "/long":
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write([]byte(big))
		case "/long-unsized":
			w.Write([]byte(big))
		default:
			w.Write([]byte("small"))
		}
	}))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	paths := []string{"/flushed", "/long", "/small", "/long-unsized", "/flushed", "/small"}
	var reqs strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&reqs, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", p)
	}
	io.WriteString(c, reqs.String())
	r := bufio.NewReader(c)
	want := map[string]string{"/flushed": "first,second", "/long": big, "/long-unsized": big, "/small": "small"}
	for _, p := range paths {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || string(b) != want[p] {
			t.Fatalf("%s: %d, %d bytes (%v), want 200 with %d bytes", p, resp.StatusCode, len(b), err, len(want[p]))
		}
		if chunked := len(resp.TransferEncoding) > 0; chunked != (p == "/flushed" || p == "/long-unsized") {
			t.Errorf("%s: Transfer-Encoding %v", p, resp.TransferEncoding)
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, _ := r.Read(make([]byte, 1)); n > 0 {
		t.Fatal("bytes after the last answer")
	}

	old := dial(t, addr)
	_ = old.SetDeadline(time.Now().Add(10 * time.Second))
	for range 2 {
		io.WriteString(old, "GET /long HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		resp, err := http.ReadResponse(old.r, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if len(b) != len(big) || resp.Close {
			t.Fatalf("HTTP/1.0 with a length: %d bytes, close %v; want %d, kept alive", len(b), resp.Close, len(big))
		}
	}
	io.WriteString(old, "GET /long-unsized HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
	resp, err := http.ReadResponse(old.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body) // to the close
	if err != nil || string(b) != big || len(resp.TransferEncoding) > 0 {
		t.Fatalf("HTTP/1.0 without a length: %d bytes (%v), %v", len(b), err, resp.TransferEncoding)
	}
}

// As on net/http, where fasthttp alone would differ: a handler's own Date
// is kept, on an answer in memory and on a streamed one, and a nil Date
// leaves the answer undated; several Cookie lines reach the handler apart
// and as the client wrote them (fasthttp joins and rewrites them).
func TestFastServerKeepsDatesAndCookieLines(t *testing.T) {
	addr := serveFast(t, NewConns(16), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/dated":
			w.Header().Set("Date", handlersDate)
			w.Write([]byte("small"))
		case "/dated-streamed":
			w.Header().Set("Date", handlersDate)
			w.Write([]byte("first"))
			w.(http.Flusher).Flush()
		case "/undated":
			w.Header()["Date"] = nil
			w.Write([]byte("small"))
		case "/cookies":
			fmt.Fprintf(w, "%q", r.Header.Values("Cookie"))
		}
	}))
	c := dial(t, addr)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	for path, want := range map[string][]string{"/dated": {handlersDate}, "/dated-streamed": {handlersDate}, "/undated": nil} {
		resp, err := c.get(t, path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if got := resp.Header.Values("Date"); !slices.Equal(got, want) {
			t.Errorf("%s: Date %q, want %q", path, got, want)
		}
	}
	io.WriteString(c, "GET /cookies HTTP/1.1\r\nHost: x\r\nCookie: a=1;b=2\r\nAccept: */*\r\nCookie: c=3\r\n\r\n")
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if want := `["a=1;b=2" "c=3"]`; string(b) != want {
		t.Fatalf("Cookie values %s, want %s", b, want)
	}
}

// A request framed by both Content-Length and Transfer-Encoding ends its
// connection after the answer, whichever way the answer goes (in memory,
// streamed, or with the handler's Date, written on the connection) and
// even when its chunked body is empty. So a request smuggled behind it is
// never read.
func TestFastServerClosesAfterARequestFramedTwice(t *testing.T) {
	addr := serveFast(t, NewConns(16), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/streamed":
			w.Write([]byte("first"))
			w.(http.Flusher).Flush()
		case "/dated":
			w.Header().Set("Date", handlersDate)
		}
		w.Write([]byte("ok"))
	}))
	for _, req := range []struct{ path, body string }{
		{"/small", "0\r\n\r\n"}, {"/small", "3\r\nabc\r\n0\r\n\r\n"}, {"/streamed", "0\r\n\r\n"}, {"/dated", "3\r\nabc\r\n0\r\n\r\n"},
	} {
		path := req.path
		c := dial(t, addr)
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n%sGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n", path, req.body)
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		if rest, err := io.ReadAll(c.r); len(rest) > 0 || err != nil {
			t.Errorf("%s: after the answer: %q, %v; want the connection closed", path, rest, err)
		}
	}
}
