package outbound

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
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
	if code, ok := answerErrno(resp); ok {
		return nil, code // PERM for a node refused, IO from an API server without the relay
	}
	return nil, abi.ErrIO
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
