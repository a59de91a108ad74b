package outbound

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httplimit"
)

// The server half of the relay (docs/nodes.md, "The uplink"), whose client
// half is Relay: GET abi.UplinkPath says whether the control plane's uplink
// is up (PUT takes it up or down), and CONNECT <IPv4>:<port> relays a
// worker's connection to a host outside through it. Both serve nodes only.

// uplinkState is the body of GET and PUT abi.UplinkPath.
type uplinkState struct {
	Up *bool `json:"up"`
}

// StateHandler serves GET abi.UplinkPath, {"up":bool}, and PUT with
// {"up":bool}, which takes the uplink up or down (the control plane logs
// the change) and answers the new state. The API server checks the token
// before.
func (u *Uplink) StateHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && !u.setState(w, r) {
			return
		}
		up := u.Up()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(uplinkState{Up: &up})
	})
}

// setState reads the body of PUT abi.UplinkPath and sets the uplink, or
// answers 400 and reports false.
func (u *Uplink) setState(w http.ResponseWriter, r *http.Request) bool {
	var body uplinkState
	dec := json.NewDecoder(io.LimitReader(r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Up == nil {
		msg := `the body must be {"up":true} or {"up":false}`
		if err != nil {
			msg = fmt.Sprintf("%s: %v", msg, err)
		}
		st := apierrors.NewBadRequest("uplink: " + msg).Status()
		st.Kind, st.APIVersion = "Status", "v1"
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(st)
		return false
	}
	u.Set(*body.Up)
	return true
}

// RelayHandler serves CONNECT <IPv4>:<port> for the clients nodes tells
// to be nodes (with a token, r must carry it; without one, it must come
// from the InternalIP of a Node), and refuses any other with K32_ERR_PERM.
func (u *Uplink) RelayHandler(nodes *Nodes) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if nodes.authenticateNode(r, "") != "" {
			writeErrno(w, abi.ErrPerm)
			return
		}
		u.serveRelay(w, r)
	})
}

// serveRelay serves a worker's CONNECT <IPv4>:<port> request (the address
// a connection reaches, as destAddr gives it: never 0.0.0.0), once the API
// server has checked that it comes from a node: while the uplink is down it
// holds the request until the uplink comes up or the worker gives up; then
// it connects from the control plane and relays the bytes both ways. A
// connection that fails answers 502 with the K32_ERR_* code in
// abi.HeaderEgressResult. When the uplink goes down, the connections it
// relays are cut: the host's side is closed and the worker's is held,
// its bytes going nowhere, until the worker closes it.
func (u *Uplink) serveRelay(w http.ResponseWriter, r *http.Request) {
	// The worker checked its pod's NetworkPolicies against the address
	// it asks for, which lookup made the address a connection reaches: one
	// that is not (0.0.0.0, IPv4-mapped IPv6) was never checked as what it
	// reaches, and is refused rather than dialled.
	addr, err := netip.ParseAddrPort(r.Host)
	if dest, derr := destAddr(addr.Addr()); err != nil || derr != nil || dest != addr.Addr() {
		writeErrno(w, abi.ErrInval)
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
			writeErrno(w, code)
		} // otherwise the worker gave up: nobody to answer
		return
	}
	defer host.Close()
	hj, ok := w.(http.Hijacker)
	if !ok {
		writeErrno(w, abi.ErrIO)
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
