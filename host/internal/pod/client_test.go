package pod

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// serveLimited serves p as the node's ports do (httplimit's server, whose
// connections ResetOnClose reaches) and returns its address.
func serveLimited(t *testing.T, p http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httplimit.NewConns(16).NewServer(p, httplimit.Limits{})
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// A client that takes no part of a large answer is dropped after one
// callback deadline of waiting, with a reset, so that the kernel does not
// trickle the rest to it; the pod's write gets K32_ERR_IO. A client that
// takes its answer gets all of it, and a graceful close after it
// (docs/serve.md, "Hostile clients").
func TestClientThatDoesNotReadIsReset(t *testing.T) {
	p := startPod(t, respflood(t), func(c *Config) { c.HandlerTimeout = time.Second })
	addr := serveLimited(t, p)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := fmt.Fprintf(conn, "GET /big?%d HTTP/1.1\r\nHost: x\r\n\r\n", 32<<20); err != nil {
		t.Fatal(err)
	}
	wantErr := fmt.Sprintf(" err=%d", abi.ErrIO)
	testenv.EventuallyNil(t, "the pod to log its failed write", func() error {
		for _, l := range p.Logs() {
			if strings.HasPrefix(l.Text, "big wrote=") {
				if !strings.HasSuffix(l.Text, wantErr) {
					return fmt.Errorf("the pod logged %q, want an error%s", l.Text, wantErr)
				}
				return nil
			}
		}
		return errors.New("not yet")
	})
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // what is left arrives at once
	if n, err := io.Copy(io.Discard, conn); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the slow client read %d bytes and then %v, want a connection reset", n, err)
	}

	// A client that reads: 4 MiB in 64 KiB writes, then the close it asked for.
	const size = 4 << 20
	conn, err = net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "GET /big?%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", size); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil || n != size {
		t.Fatalf("the reading client got %d bytes and %v, want %d", n, err, size)
	}
	if n, err := io.Copy(io.Discard, br); err != nil || n != 0 {
		t.Fatalf("after the answer: %d bytes and %v, want a graceful close", n, err)
	}
}

// A pod served without the node's ports in front (which read the body
// first, httplimit.ReadBody) still cannot be held by a client that sends
// its body slowly: the connection's read deadline, a second past the
// callback's, ends the guest's wait in k32_req_read, the callback is over
// its deadline by then and answered 504, and the next request is served by
// a fresh instance (docs/serve.md, "Hostile clients").
func TestSlowBodyCannotHoldADirectlyServedPod(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), func(c *Config) { c.HandlerTimeout = time.Second })
	url := serve(t, p)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 10 bytes of the 100 promised, then nothing.
	if _, err := io.WriteString(conn, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(b), "k32_handle exceeded 1s") {
		t.Fatalf("%d %q, want 504: k32_handle exceeded 1s", res.StatusCode, b)
	}
	if res := get(t, url+"/hello"); res.status != http.StatusOK || res.body != "hello\n" {
		t.Fatalf("the next request: %d %q", res.status, res.body)
	}
}
