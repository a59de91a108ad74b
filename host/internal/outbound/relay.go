package outbound

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httplimit"
)

// Relay is a worker's Route: the worker reaches hosts outside through the
// control plane, as board workers do through its NAT. Before a name is
// looked up it asks the API server whether the uplink is up (the name
// server is reached through it); each connection is a CONNECT to the API
// server, which opens it from the control plane while the uplink is up
// and holds it, as NAT off drops the packets, while it is down.
type Relay struct {
	// API is the API server, http://host:port; Token its bearer token
	// ("" for none).
	API, Token string
	// NodeIP is the node's InternalIP, which the connections come from:
	// without a token the relay serves only the InternalIPs of Nodes.
	NodeIP string

	once   sync.Once
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	client *http.Client
}

var _ Route = (*Relay)(nil)

// uplinkState is the body of GET and PUT abi.UplinkPath.
type uplinkState struct {
	Up *bool `json:"up"`
}

// Names implements Route: K32_ERR_NOENT while the control plane's uplink is
// down, K32_ERR_IO when the API server does not say.
func (r *Relay) Names(ctx context.Context) error {
	r.init()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(r.API, "/")+abi.UplinkPath, nil)
	if err != nil {
		return abi.ErrIO
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return IOErrno(ctx, err)
	}
	defer resp.Body.Close()
	var state uplinkState
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&state) != nil || state.Up == nil {
		return abi.ErrIO
	}
	if !*state.Up {
		return abi.ErrNoEnt
	}
	return nil
}

// Dial implements Route: it asks the API server to relay a connection to
// addr. Failures are those the control plane met (CONNREFUSED,
// HOSTUNREACH, IO), PERM when the API server refuses the node, and
// TIMEOUT when ctx's deadline passes first, as it does while the uplink
// is down.
func (r *Relay) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	r.init()
	u, err := url.Parse(r.API)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("relay through %q: not an http://host:port URL: %w", r.API, abi.ErrIO)
	}
	conn, err := r.dial(ctx, "tcp", u.Host)
	if err != nil {
		return nil, IOErrno(ctx, err)
	}
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	head := "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if r.Token != "" {
		head += "Authorization: Bearer " + r.Token + "\r\n"
	}
	br := bufio.NewReader(conn)
	var resp *http.Response
	if _, err = io.WriteString(conn, head+"\r\n"); err == nil {
		resp, err = http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	}
	if !stop() || err != nil {
		conn.Close()
		if err == nil {
			err = ctx.Err()
		}
		return nil, IOErrno(ctx, err)
	}
	conn.SetDeadline(time.Time{})
	if resp.StatusCode == http.StatusOK {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	conn.Close()
	code, err := strconv.Atoi(resp.Header.Get(abi.HeaderEgressResult))
	switch {
	case err == nil && code < 0:
		return nil, abi.Errno(code)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, abi.ErrPerm
	}
	return nil, abi.ErrIO // an API server without the relay
}

// init makes the dialer and the client, whose connections come from NodeIP.
func (r *Relay) init() {
	r.once.Do(func() {
		r.dial = dialFrom(r.NodeIP)
		r.client = &http.Client{Transport: &http.Transport{DialContext: r.dial, MaxIdleConnsPerHost: 2,
			IdleConnTimeout: 90 * time.Second}}
	})
}

// bufferedConn reads what the relay's answer left in its reader first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// ServeRelay serves a worker's CONNECT <IPv4>:<port> request (the address
// a connection reaches, as destAddr gives it: never 0.0.0.0), once the API
// server has checked that it comes from a node: while the uplink is down it
// holds the request until the uplink comes up or the worker gives up; then
// it connects from the control plane and relays the bytes both ways. A
// connection that fails answers 502 with the K32_ERR_* code in
// abi.HeaderEgressResult. When the uplink goes down, the connections it
// relays are cut: the host's side is closed and the worker's is held,
// its bytes going nowhere, until the worker closes it.
func (u *Uplink) ServeRelay(w http.ResponseWriter, r *http.Request) {
	// The worker checked its pod's NetworkPolicies against the address
	// it asks for, which lookup made the address a connection reaches: one
	// that is not (0.0.0.0, IPv4-mapped IPv6) was never checked as what it
	// reaches, and is refused rather than dialled.
	addr, err := netip.ParseAddrPort(r.Host)
	if dest, derr := destAddr(addr.Addr()); err != nil || derr != nil || dest != addr.Addr() {
		relayFailed(w, abi.ErrInval)
		return
	}
	// A relayed connection lasts as long as the pod keeps it.
	if err := httplimit.Stream(r, httplimit.APIStream); err != nil {
		httplimit.Refuse(w, err)
		return
	}
	for {
		up, changed := u.State()
		if up {
			break
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return // the worker gave up
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), abi.CallTimeoutMax)
	host, err := u.Dial(ctx, "tcp4", addr.String())
	cancel()
	if err != nil {
		if code, ok := dialErrno(ctx, err).(abi.Errno); ok {
			relayFailed(w, code)
		} // otherwise the worker gave up: nobody to answer
		return
	}
	defer host.Close()
	hj, ok := w.(http.Hijacker)
	if !ok {
		relayFailed(w, abi.ErrIO)
		return
	}
	worker, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer worker.Close()
	if _, err := io.WriteString(worker, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	u.relay(r.Context(), worker, brw.Reader, host)
}

// relay copies between the worker and the host until either ends, and
// cuts the connection when the uplink goes down.
func (u *Uplink) relay(ctx context.Context, worker net.Conn, fromWorker io.Reader, host net.Conn) {
	cut, done := make(chan struct{}), make(chan struct{})
	go func() {
		for {
			up, changed := u.State()
			if !up {
				close(cut)
				host.Close()
				return
			}
			select {
			case <-changed:
			case <-done:
				return
			}
		}
	}()
	stop := context.AfterFunc(ctx, func() { worker.Close(); host.Close() }) // serve is stopping
	defer stop()
	hostDone := make(chan struct{})
	go func() {
		defer close(hostDone)
		io.Copy(worker, host)
		if !closed(cut) {
			worker.Close() // the host's end reaches the worker, unless NAT is off
		}
	}()
	io.Copy(host, fromWorker)
	if closed(cut) {
		io.Copy(io.Discard, fromWorker) // hold the worker's side until it gives up
	}
	close(done)
	worker.Close()
	host.Close()
	<-hostDone
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// relayFailed answers a relay request that made no connection.
func relayFailed(w http.ResponseWriter, code abi.Errno) {
	status := http.StatusBadGateway
	switch code {
	case abi.ErrInval:
		status = http.StatusBadRequest
	case abi.ErrPerm:
		status = http.StatusForbidden
	}
	w.Header().Set(abi.HeaderEgressResult, strconv.Itoa(int(code)))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, code.Name()+"\n")
}

// RelayRefused answers a relay request from a client that is not a node.
func RelayRefused(w http.ResponseWriter) { relayFailed(w, abi.ErrPerm) }
