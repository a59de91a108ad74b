package outbound

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/lograte"
	"github.com/kube32/kube32/host/internal/pod"
)

// HTTPS carries a node's https:// calls: TLS on the control plane, Egress
// (through the control plane's egress gateway) on workers.
type HTTPS interface {
	// CallHTTPS makes call to the https:// OutsideTarget t. A node that
	// opens the connection itself checks it with its Policy; one that
	// opens none (a worker) leaves the check to the control plane.
	CallHTTPS(ctx context.Context, t Target, call pod.Call) (pod.CallResult, error)
}

// TLS makes the control plane's https:// connections, as docs/calls.md,
// "Calls to https:// hosts", says: TLS 1.2 exactly, the certificate chain
// checked against Roots, the URL's host (DNS name or IPv4 address) and the
// validity dates, at most Sessions calls at once (K32_ERR_BUSY at once
// beyond), one connection per call handled as Outside handles a plain one.
// One TLS serves the control plane's pods and its egress gateway, so that
// both share the sessions.
type TLS struct {
	// Roots are the trusted roots; nil means the operating system's.
	Roots *x509.CertPool
	// Sessions is how many calls may run at once; 0 means
	// abi.TLSSessions.
	Sessions int
	// HeadLimit bounds each response head; 0 means abi.ControlPlaneHeadLimit.
	HeadLimit int
	// Policy checks each connection (Outside.Policy): the control
	// plane's, for its own pods and the egress gateway's calls alike.
	Policy *Policy
	// Resolver, Route and Dial are as in Outside.
	Resolver *net.Resolver
	Route    Route
	Dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logf receives "[EGRESS] <pod> -> https://<host>:<port>: certificate
	// rejected: <reason>", at most once per abi.LogRateInterval; nil logs nothing.
	Logf func(format string, args ...any)
	// LogClock is the time of the line's limit; nil is time.Now (tests
	// move it on instead of waiting out abi.LogRateInterval).
	LogClock func() time.Time

	mu       sync.Mutex
	busy     int
	certLogs lograte.Limiter
}

var _ HTTPS = (*TLS)(nil)

// LoadRoots returns the operating system's roots plus the certificates of
// the PEM file caFile ("" for none): what the simulator trusts (serve's
// --egress-ca).
func LoadRoots(caFile string) (*x509.CertPool, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool() // no system roots: only the given ones
	}
	if caFile == "" {
		return roots, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("egress CA: %w", err)
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("egress CA %s: no PEM certificate in it", caFile)
	}
	return roots, nil
}

// Response is the answer of an https:// host as it arrives: its status and
// head, and its body, unframed, which Close stops reading. Close frees the
// session.
type Response struct {
	Status int
	Header http.Header
	// Body is the body as the host sends it (without its chunked
	// framing); reads end at the call's deadline.
	Body io.Reader
	// Length is the body's Content-Length, or -1 when it runs until the
	// host ends it.
	Length int64

	close func()
	once  sync.Once
}

// Close closes the connection to the host and frees the session.
func (r *Response) Close() error {
	r.once.Do(r.close)
	return nil
}

// CallHTTPS implements HTTPS: it makes call and reads at most call.RespCap
// bytes of body (Truncated when there were more).
func (s *TLS) CallHTTPS(ctx context.Context, t Target, call pod.Call) (pod.CallResult, error) {
	resp, err := s.Open(ctx, t, call)
	if err != nil {
		return pod.CallResult{}, err
	}
	defer resp.Close()
	body, truncated, err := ReadBody(resp.Body, resp.Length, call.RespCap)
	if err != nil {
		return pod.CallResult{}, IOErrno(ctx, err)
	}
	return pod.CallResult{Status: resp.Status, Header: resp.Header, Body: body, Truncated: truncated}, nil
}

// Open takes a session, connects to t (Policy checking the connection),
// shakes hands, sends call and reads the answer's head. Failures are
// abi.Errno codes: BUSY (every session in use), CERT (the certificate was
// refused), TLS (any other handshake failure), and those of Outside.Do.
// The caller must Close the Response.
func (s *TLS) Open(ctx context.Context, t Target, call pod.Call) (*Response, error) {
	if t.Kind != OutsideTarget || t.Scheme != "https" {
		return nil, fmt.Errorf("call %s: not an https:// host outside the cluster", t.Addr())
	}
	req, err := buildRequest(t, call)
	if err != nil {
		return nil, err
	}
	if !s.acquire() {
		return nil, abi.ErrBusy
	}
	resp, err := s.open(ctx, t, call, req)
	if err != nil {
		s.release()
		return nil, err
	}
	return resp, nil
}

// open is Open once the session is taken.
func (s *TLS) open(ctx context.Context, t Target, call pod.Call, req []byte) (*Response, error) {
	o := &Outside{Resolver: s.Resolver, Route: s.Route, Dial: s.Dial, Policy: s.Policy}
	raw, err := o.dial(ctx, call.From, t)
	if err != nil {
		return nil, err
	}
	// As in Outside.Do: every read and write ends at ctx's deadline, and
	// at once when ctx is cancelled.
	if d, ok := ctx.Deadline(); ok {
		raw.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { raw.SetDeadline(time.Unix(1, 0)) })
	conn := tls.Client(raw, &tls.Config{
		ServerName: t.Host, // a DNS name, or the IPv4 address dialled, checked against the IP SANs
		RootCAs:    s.Roots,
		MinVersion: tls.VersionTLS12,
		MaxVersion: tls.VersionTLS12, // the boards' mbedTLS speaks TLS 1.2 only
	})
	if err := conn.HandshakeContext(ctx); err != nil {
		stop()
		raw.Close()
		return nil, s.handshakeErrno(ctx, err, call.From, t)
	}
	// Write and read at once, as Outside.Do does.
	written := make(chan struct{})
	go func() {
		defer close(written)
		bufs := net.Buffers{req, call.Body}
		bufs.WriteTo(conn) // a failed write shows as a failed read
	}()
	done := func() {
		stop()
		raw.Close() // no close_notify: the host may still be sending
		<-written
		s.release()
	}
	status, header, body, length, err := readResponseHead(bufio.NewReaderSize(conn, 4096), s.headLimit(), call.Method)
	if err != nil {
		stop()
		raw.Close()
		<-written
		return nil, IOErrno(ctx, err)
	}
	return &Response{Status: status, Header: header, Body: body, Length: length, close: done}, nil
}

// handshakeErrno maps a failed handshake: CERT for a refused certificate
// (logged), TIMEOUT or the pod's stop as for any connection, TLS for the
// rest.
func (s *TLS) handshakeErrno(ctx context.Context, err error, from string, t Target) error {
	var verify *tls.CertificateVerificationError
	if errors.As(err, &verify) {
		s.logCert(from, t, verify.Err)
		return abi.ErrCert
	}
	var ne net.Error
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return IOErrno(ctx, err)
	}
	return abi.ErrTLS
}

// logCert writes the [EGRESS] certificate line, unless one was written
// less than a second ago.
func (s *TLS) logCert(from string, t Target, reason error) {
	if s.Logf == nil || !s.certLogs.AllowAt(lograte.Now(s.LogClock)) {
		return
	}
	s.Logf("[EGRESS] %s -> https://%s: certificate rejected: %v", from, net.JoinHostPort(t.Host, strconv.Itoa(t.Port)), reason)
}

// acquire takes a session, or reports that every one is in use.
func (s *TLS) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.Sessions
	if n <= 0 {
		n = abi.TLSSessions
	}
	if s.busy >= n {
		return false
	}
	s.busy++
	return true
}

// release frees a session.
func (s *TLS) release() {
	s.mu.Lock()
	s.busy--
	s.mu.Unlock()
}

// headLimit returns HeadLimit or its default.
func (s *TLS) headLimit() int {
	if s.HeadLimit > 0 {
		return s.HeadLimit
	}
	return abi.ControlPlaneHeadLimit
}
