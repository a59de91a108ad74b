package outbound

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// hangGuard bounds calls that should end on their own, so a bug fails the
// test instead of hanging it. It is no timing assertion.
const hangGuard = 20 * time.Second

func TestOutsideSlowHeadTimesOut(t *testing.T) {
	s := startServer(t, loopback(21), func(c net.Conn, _ *received) { io.Copy(io.Discard, c) })
	_, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{URL: "http://" + s.addr + "/"}, 100*time.Millisecond)
	wantErrno(t, err, abi.ErrTimeout)
}

func TestOutsideSlowBodyTimesOut(t *testing.T) {
	s := startServer(t, loopback(21), answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf"))
	_, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{URL: "http://" + s.addr + "/"}, 100*time.Millisecond)
	wantErrno(t, err, abi.ErrTimeout)
}

// headOfSize returns a 200 response head of exactly n bytes, blank line
// included, with an empty body.
func headOfSize(n int) string {
	const start, end = "HTTP/1.1 200 OK\r\nX-Pad: ", "\r\nContent-Length: 0\r\n\r\n"
	return start + strings.Repeat("p", n-len(start)-len(end)) + end
}

func TestOutsideHeadLimit(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		head  int
		ok    bool
	}{
		{"control plane: 8 KiB head fits", 0, abi.ControlPlaneHeadLimit, true},
		{"control plane: one byte over 8 KiB is IO", 0, abi.ControlPlaneHeadLimit + 1, false},
		{"control plane: a huge head is IO", abi.ControlPlaneHeadLimit, 64 << 10, false},
		{"worker: 1 KiB head fits", abi.WorkerHeadLimit, abi.WorkerHeadLimit, true},
		{"worker: one byte over 1 KiB is IO", abi.WorkerHeadLimit, abi.WorkerHeadLimit + 1, false},
		{"worker: a head that fits 8 KiB is IO", abi.WorkerHeadLimit, 4 << 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, loopback(22), answer(headOfSize(tt.head)))
			res, err := doCall(t, &Outside{Policy: noPolicies, HeadLimit: tt.limit}, pod.Call{URL: "http://" + s.addr + "/"}, hangGuard)
			if !tt.ok {
				wantErrno(t, err, abi.ErrIO)
				return
			}
			if err != nil || res.Status != 200 || len(res.Header.Get("X-Pad")) == 0 {
				t.Fatalf("result %+v, %v; want 200 with X-Pad", res, err)
			}
		})
	}
}

func TestOutsideHeadLimitAppliesToEachInterimHead(t *testing.T) {
	interim := strings.Replace(headOfSize(abi.WorkerHeadLimit), "200 OK", "103 Hi", 1)
	s := startServer(t, loopback(22), answer(interim+interim+headOfSize(abi.WorkerHeadLimit)))
	res, err := doCall(t, &Outside{Policy: noPolicies, HeadLimit: abi.WorkerHeadLimit}, pod.Call{URL: "http://" + s.addr + "/"}, hangGuard)
	if err != nil || res.Status != 200 {
		t.Fatalf("result %+v, %v; want 200", res, err)
	}
}

func TestOutsideSkipsInterimResponses(t *testing.T) {
	s := startServer(t, loopback(23), answer("HTTP/1.1 100 Continue\r\n\r\n"+
		"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"+
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Final: yes\r\n\r\nok"))
	res, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{URL: "http://" + s.addr + "/"}, hangGuard)
	if err != nil || res.Status != 200 || string(res.Body) != "ok" || res.Header.Get("X-Final") != "yes" || res.Header.Get("Link") != "" {
		t.Fatalf("result %+v, %v; want the final 200 only", res, err)
	}
}

func TestOutsideReturnsRedirectAsIs(t *testing.T) {
	s := startServer(t, loopback(24), answer("HTTP/1.1 301 Moved Permanently\r\nLocation: http://127.0.0.99/elsewhere\r\nContent-Length: 5\r\n\r\nmoved"))
	res, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{URL: "http://" + s.addr + "/old"}, hangGuard)
	if err != nil || res.Status != 301 || res.Header.Get("Location") != "http://127.0.0.99/elsewhere" || string(res.Body) != "moved" {
		t.Fatalf("result %+v, %v; want the 301 itself", res, err)
	}
	if len(s.reqs) != 1 {
		t.Errorf("server got %d requests, want 1 (no redirect followed)", len(s.reqs))
	}
}

// endless returns a handler that writes head and then body bytes forever,
// reporting on done the write error that ends it.
func endless(head string, chunked bool, done chan<- error) func(net.Conn, *received) {
	return func(c net.Conn, _ *received) {
		if _, err := io.WriteString(c, head); err != nil {
			done <- err
			return
		}
		block := bytes.Repeat([]byte("0123456789abcdef"), 64)
		if chunked {
			block = append(append([]byte(strconv.FormatInt(int64(len(block)), 16)+"\r\n"), block...), "\r\n"...)
		}
		for {
			if _, err := c.Write(block); err != nil {
				done <- err
				return
			}
		}
	}
}

func TestOutsideEndlessBodyIsTruncated(t *testing.T) {
	tests := []struct {
		name    string
		head    string
		chunked bool
	}{
		{"until close", "HTTP/1.1 200 OK\r\n\r\n", false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"Content-Length larger than the buffer", "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			s := startServer(t, loopback(25), endless(tt.head, tt.chunked, done))
			const respCap = 1500
			res, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{URL: "http://" + s.addr + "/", RespCap: respCap}, hangGuard)
			if err != nil || !res.Truncated || res.Status != 200 || len(res.Body) != respCap {
				t.Fatalf("result status %d truncated %v body %d bytes, %v; want 200 truncated at %d", res.Status, res.Truncated, len(res.Body), err, respCap)
			}
			want := bytes.Repeat([]byte("0123456789abcdef"), 100)[:respCap]
			if !bytes.Equal(res.Body, want) {
				t.Errorf("body is not the first %d bytes sent", respCap)
			}
			select {
			case err := <-done: // the client closed: the server's writes fail
				if err == nil {
					t.Error("server write ended without error")
				}
			case <-time.After(hangGuard):
				t.Fatal("the server still writes: the client kept the connection open")
			}
		})
	}
}

func TestOutsideBodyFraming(t *testing.T) {
	tests := []struct {
		name, method, raw string
		close             bool // the server closes after raw
		status            int
		body              string
		truncated         bool
		err               abi.Errno
	}{
		{name: "Content-Length, connection left open", raw: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, body: "hello"},
		{name: "chunked with trailer, connection left open", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n", status: 200, body: "hello world"},
		{name: "no length: read until close", raw: "HTTP/1.0 200 OK\r\n\r\nall of it", close: true, status: 200, body: "all of it"},
		{name: "HEAD has no body", method: "HEAD", raw: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", status: 200},
		{name: "204 has no body", raw: "HTTP/1.1 204 No Content\r\n\r\n", status: 204},
		{name: "304 has no body", raw: "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", status: 304},
		{name: "body exactly the buffer is not truncated", raw: "HTTP/1.1 200 OK\r\n\r\n" + strings.Repeat("x", 64), close: true, status: 200, body: strings.Repeat("x", 64)},
		{name: "one byte over the buffer is truncated", raw: "HTTP/1.1 200 OK\r\n\r\n" + strings.Repeat("x", 65), close: true, status: 200, body: strings.Repeat("x", 64), truncated: true},
		{name: "error statuses are answers", raw: "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy", status: 503, body: "busy"},
		{name: "closed before the head ends is IO", raw: "HTTP/1.1 200 OK\r\nContent-", close: true, err: abi.ErrIO},
		{name: "nothing at all is IO", raw: "", close: true, err: abi.ErrIO},
		{name: "not HTTP is IO", raw: "SSH-2.0-OpenSSH\r\n\r\n", close: true, err: abi.ErrIO},
		{name: "body shorter than its Content-Length is IO", raw: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", close: true, err: abi.ErrIO},
		{name: "conflicting Content-Lengths are IO", raw: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", close: true, err: abi.ErrIO},
		{name: "bad chunk is IO", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", close: true, err: abi.ErrIO},
		{name: "101 never asked for is IO", raw: "HTTP/1.1 101 Switching Protocols\r\n\r\n", close: true, err: abi.ErrIO},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handle := answer(tt.raw)
			if tt.close {
				handle = answerAndClose(tt.raw)
			}
			s := startServer(t, loopback(26), handle)
			res, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{URL: "http://" + s.addr + "/", Method: tt.method, RespCap: 64}, hangGuard)
			if tt.err != 0 {
				wantErrno(t, err, tt.err)
				return
			}
			if err != nil || res.Status != tt.status || string(res.Body) != tt.body || res.Truncated != tt.truncated {
				t.Fatalf("result status %d body %q truncated %v, %v; want %d %q %v", res.Status, res.Body, res.Truncated, err, tt.status, tt.body, tt.truncated)
			}
		})
	}
}

func TestOutsideRefusedPort(t *testing.T) {
	ln, err := net.Listen("tcp4", loopback(27)+":0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	_, err = doCall(t, &Outside{Policy: noPolicies}, pod.Call{URL: "http://" + addr + "/"}, hangGuard)
	wantErrno(t, err, abi.ErrConnRefused)
}

func TestOutsideNameLookup(t *testing.T) {
	s := startServer(t, loopback(28), answer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfound"))
	_, port, _ := net.SplitHostPort(s.addr)
	o := &Outside{Policy: noPolicies, Resolver: fakeDNS(t, loopback(53), map[string]string{"host.outside.test": loopback(28)})}

	res, err := doCall(t, o, pod.Call{URL: "http://Host.Outside.Test:" + port + "/"}, hangGuard)
	if err != nil || string(res.Body) != "found" {
		t.Fatalf("call by name: %+v, %v", res, err)
	}
	if r := <-s.reqs; r.header.Get("Host") != "Host.Outside.Test:"+port {
		t.Errorf("Host = %q, want the URL's", r.header.Get("Host"))
	}
	_, err = doCall(t, o, pod.Call{URL: "http://nothing.here.invalid/"}, hangGuard)
	wantErrno(t, err, abi.ErrNoEnt)
}

func TestOutsideHeaderFiltering(t *testing.T) {
	s := startServer(t, loopback(29), answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	header := http.Header{
		"X-Kube32-Pod": {"default/other"}, "X-Kube32-Call-Chain": {"a,b"}, "X-Kube32-Anything": {"1"},
		"Host": {"evil.example"}, "Content-Length": {"999"}, "Connection": {"keep-alive"},
		"Transfer-Encoding": {"chunked"}, "Keep-Alive": {"timeout=5"}, "Upgrade": {"websocket"},
		"Te": {"trailers"}, "Trailer": {"X-T"}, "Expect": {"100-continue"},
		"Accept": {"text/plain"}, "Cookie": {"a=1"}, "X-Custom": {"one", "two"}, "Authorization": {"Bearer t"},
	}
	_, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{Method: "POST", URL: "http://" + s.addr + "/submit?x=1", Header: header, Body: []byte("payload")}, hangGuard)
	if err != nil {
		t.Fatal(err)
	}
	r := <-s.reqs
	if r.line != "POST /submit?x=1 HTTP/1.1" {
		t.Errorf("request line %q", r.line)
	}
	for _, name := range []string{"X-Kube32-Pod", "X-Kube32-Call-Chain", "X-Kube32-Anything", "Transfer-Encoding", "Keep-Alive", "Upgrade", "Te", "Trailer", "Expect"} {
		if v, ok := r.header[name]; ok {
			t.Errorf("%s reached the host: %q", name, v)
		}
	}
	checks := map[string][]string{
		"Host": {s.addr}, "Content-Length": {"7"}, "Connection": {"close"},
		"Accept": {"text/plain"}, "Cookie": {"a=1"}, "X-Custom": {"one", "two"}, "Authorization": {"Bearer t"},
	}
	for name, want := range checks {
		if got := r.header.Values(name); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if string(r.body) != "payload" {
		t.Errorf("body %q", r.body)
	}
	if r.raw[0] != "Host: "+s.addr {
		t.Errorf("first header line %q, want Host first", r.raw[0])
	}
}

func TestOutsideEmptyPostSendsContentLength(t *testing.T) {
	s := startServer(t, loopback(29), answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	for method, want := range map[string]string{"POST": "0", "GET": ""} {
		if _, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{Method: method, URL: "http://" + s.addr + "/"}, hangGuard); err != nil {
			t.Fatal(err)
		}
		if got := (<-s.reqs).header.Get("Content-Length"); got != want {
			t.Errorf("%s: Content-Length %q, want %q", method, got, want)
		}
	}
}

func TestOutsideRefusesUnsendableRequest(t *testing.T) {
	for name, c := range map[string]pod.Call{
		"bad method":       {Method: "GE T", URL: "http://127.0.0.1:1/"},
		"bad header name":  {Header: http.Header{"Bad Name": {"x"}}, URL: "http://127.0.0.1:1/"},
		"header with CRLF": {Header: http.Header{"X-A": {"x\r\nInjected: 1"}}, URL: "http://127.0.0.1:1/"},
	} {
		_, err := doCall(t, &Outside{Policy: noPolicies}, c, hangGuard)
		if e, ok := err.(abi.Errno); !ok || e != abi.ErrInval {
			t.Errorf("%s: error %v, want K32_ERR_INVAL", name, err)
		}
	}
}

func TestOutsideStoppingPodInterruptsCall(t *testing.T) {
	s := startServer(t, loopback(30), func(c net.Conn, _ *received) { io.Copy(io.Discard, c) })
	tg, _ := ParseTarget("http://"+s.addr+"/", "default")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-s.reqs; cancel() }()
	_, err := (&Outside{Policy: noPolicies}).Do(ctx, tg, pod.Call{Method: "GET", RespCap: 10})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled (the pod turns it into K32_ERR_INTR)", err)
	}
}

func TestOutsideNetworkPolicySeam(t *testing.T) {
	s := startServer(t, loopback(31), answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	var asked string
	o := &Outside{Policy: policyOf(func(_ context.Context, from string, addr netip.AddrPort) error {
		asked = from + " -> " + addr.String()
		return abi.ErrPerm
	})}
	_, err := doCall(t, o, pod.Call{From: "team/web", URL: "http://" + s.addr + "/"}, hangGuard)
	wantErrno(t, err, abi.ErrPerm)
	if asked != "team/web -> "+s.addr || len(s.reqs) != 0 {
		t.Errorf("Allow asked %q, server got %d requests; want the check before connecting", asked, len(s.reqs))
	}
}

func TestDialErrno(t *testing.T) {
	ctx := context.Background()
	for errno, want := range map[syscall.Errno]abi.Errno{
		syscall.ECONNREFUSED: abi.ErrConnRefused,
		syscall.EHOSTUNREACH: abi.ErrHostUnreach,
		syscall.ENETUNREACH:  abi.ErrHostUnreach,
		syscall.ECONNRESET:   abi.ErrIO,
	} {
		err := &net.OpError{Op: "dial", Net: "tcp4", Err: &os.SyscallError{Syscall: "connect", Err: errno}}
		if got := dialErrno(ctx, err); got != want {
			t.Errorf("%v: %v, want %v", errno, got, want)
		}
	}
}

func TestOutsideEarlyAnswerCountsDespiteUnsentBody(t *testing.T) {
	// The server reads the head only, answers, and stops reading: the rest
	// of the large body cannot be written until the call's deadline, but
	// the answer arrived. The deadline is 2 s, not less, so that a loaded
	// machine has the server answer before it.
	ln, err := net.Listen("tcp4", loopback(32)+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		tp := textproto.NewReader(bufio.NewReader(c))
		for {
			if l, err := tp.ReadLine(); err != nil || l == "" {
				break
			}
		}
		io.WriteString(c, "HTTP/1.1 413 Content Too Large\r\nContent-Length: 3\r\n\r\nbig")
		c.(*net.TCPConn).CloseWrite()
		<-stop // still not reading: the client's write blocks until its deadline
	}()
	res, err := doCall(t, &Outside{Policy: noPolicies}, pod.Call{Method: "PUT", URL: "http://" + ln.Addr().String() + "/",
		Body: bytes.Repeat([]byte("x"), 8<<20)}, 2*time.Second)
	if err != nil || res.Status != 413 || string(res.Body) != "big" {
		t.Fatalf("result %+v, %v; want the 413", res, err)
	}
}
