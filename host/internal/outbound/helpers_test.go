package outbound

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// received is a request as a test server read it.
type received struct {
	line   string               // request line
	raw    []string             // header lines as sent, in order
	header textproto.MIMEHeader // the same, parsed
	body   []byte
}

// loopback returns 127.0.0.n. Linux routes all of 127.0.0.0/8 to the
// loopback interface, so each server can have an address of its own.
func loopback(n int) string { return "127.0.0." + strconv.Itoa(n) }

// server is a raw TCP server that reads one request per connection and
// lets a test answer it any way, well-formed or not.
type server struct {
	addr string         // host:port
	reqs chan *received // each request read, in order
}

// startServer listens on ip:0 and answers every connection with handle
// after reading its request. Cleanup closes the listener and every
// connection, so handlers that wait for the client end too.
func startServer(t *testing.T, ip string, handle func(c net.Conn, r *received)) *server {
	t.Helper()
	ln, err := net.Listen("tcp4", ip+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", ip, err)
	}
	s := &server{addr: ln.Addr().String(), reqs: make(chan *received, 16)}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r, err := readRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				s.reqs <- r
				handle(c, r)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return s
}

// readRequest reads a request head and its Content-Length body.
func readRequest(br *bufio.Reader) (*received, error) {
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return nil, err
	}
	r := &received{line: line, header: textproto.MIMEHeader{}}
	for {
		l, err := tp.ReadLine()
		if err != nil {
			return nil, err
		}
		if l == "" {
			break
		}
		r.raw = append(r.raw, l)
		name, value, _ := strings.Cut(l, ":")
		r.header.Add(name, strings.TrimSpace(value))
	}
	n, _ := strconv.Atoi(r.header.Get("Content-Length"))
	r.body = make([]byte, n)
	_, err = io.ReadFull(br, r.body)
	return r, err
}

// answer returns a handler that writes raw and then waits for the client
// to close, so the client must know on its own where the answer ends.
func answer(raw string) func(net.Conn, *received) {
	return func(c net.Conn, _ *received) {
		io.WriteString(c, raw)
		io.Copy(io.Discard, c)
	}
}

// answerAndClose returns a handler that writes raw and closes.
func answerAndClose(raw string) func(net.Conn, *received) {
	return func(c net.Conn, _ *received) { io.WriteString(c, raw) }
}

// fakeDNS answers A queries from names over UDP on ip, NXDOMAIN for other
// names, so name lookups stay on loopback.
func fakeDNS(t *testing.T, ip string, names map[string]string) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp4", ip+":0")
	if err != nil {
		t.Fatalf("listen udp on %s: %v", ip, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply := dnsReply(buf[:n], names); reply != nil {
				pc.WriteTo(reply, from)
			}
		}
	}()
	t.Cleanup(func() { pc.Close(); <-done })
	addr := pc.LocalAddr().String()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp4", addr)
		},
	}
}

// dnsReply builds the answer to one DNS query (RFC 1035 §4), or nil for
// a packet that is not a query of one question.
func dnsReply(q []byte, names map[string]string) []byte {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:]) != 1 {
		return nil
	}
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	question := q[12 : i+5]
	name := strings.ToLower(strings.Join(labels, "."))
	ip, known := names[name]
	out := append([]byte(nil), q[:2]...) // ID
	flags := uint16(0x8180)              // response, recursion desired and available
	if !known {
		flags |= 3 // NXDOMAIN
	}
	ancount := 0
	if known && qtype == 1 {
		ancount = 1
	}
	out = binary.BigEndian.AppendUint16(out, flags)
	out = binary.BigEndian.AppendUint16(out, 1)
	out = binary.BigEndian.AppendUint16(out, uint16(ancount))
	out = append(out, 0, 0, 0, 0) // no authority, no additional records
	out = append(out, question...)
	if ancount == 1 {
		out = append(out, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4) // name at 12, A, IN, TTL 60, 4 bytes
		out = append(out, net.ParseIP(ip).To4()...)
	}
	return out
}

// prepare fills in c's defaults (caller default/caller, GET, a 4096-byte
// answer) and returns the target of its URL and a ctx bounded by timeout.
func prepare(t *testing.T, c *pod.Call, timeout time.Duration) (Target, context.Context, context.CancelFunc) {
	t.Helper()
	if c.From == "" {
		c.From = "default/caller"
	}
	if c.Method == "" {
		c.Method = "GET"
	}
	if c.RespCap == 0 {
		c.RespCap = 4096
	}
	tg, err := ParseTarget(c.URL, "default")
	if err != nil {
		t.Fatalf("ParseTarget(%q): %v", c.URL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	return tg, ctx, cancel
}

// doCall makes an outside call to url with o and a ctx bounded by timeout.
func doCall(t *testing.T, o *Outside, c pod.Call, timeout time.Duration) (pod.CallResult, error) {
	t.Helper()
	tg, ctx, cancel := prepare(t, &c, timeout)
	defer cancel()
	return o.Do(ctx, tg.Outside(), c)
}

// wantErrno fails t unless err is exactly code.
func wantErrno(t *testing.T, err error, code abi.Errno) {
	t.Helper()
	var e abi.Errno
	if !errors.As(err, &e) || e != code {
		t.Fatalf("error = %v, want %v", err, code)
	}
}
