package outbound

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// Outside calls hosts outside the cluster over plain HTTP/1.1, as
// docs/calls.md, "Calls to hosts outside", says: the node's own resolver, one
// connection per call with Connection: close (no pool), the response read as
// it arrives and the connection closed as soon as the body exceeds the
// caller's buffer. It is written over net.Conn rather than net/http's
// Transport, which pools connections and hides how large a head is.
//
// An Outside without a Policy refuses every call (K32_ERR_PERM).
type Outside struct {
	// HeadLimit bounds the bytes of each response head, status line and
	// header fields with their line ends and the blank line; a larger head
	// fails the call with K32_ERR_IO. 0 means abi.ControlPlaneHeadLimit.
	HeadLimit int

	// Resolver looks host names up; nil means net.DefaultResolver (the
	// operating system's resolver, as on the simulator).
	Resolver *net.Resolver

	// Route, when set, is the way out of the node: the control plane's
	// uplink (docs/nodes.md, "The uplink"). A name is looked up only when
	// Route.Names allows, and connections are Route.Dial's unless Dial is
	// set. nil goes out directly, as if the uplink were always up.
	Route Route

	// Dial opens the connection; nil means Route.Dial, or a net.Dialer.
	// Tests replace it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	// Policy checks each connection against the calling pod's
	// NetworkPolicies before it is opened; its refusal (K32_ERR_PERM)
	// fails the call. Name lookups are not subject to it. Required: nil
	// refuses every connection.
	Policy *Policy
}

// Do makes call to the OutsideTarget t over http:// and reads the answer.
// Failures are abi.Errno codes: NOENT (name does not resolve), TIMEOUT
// (ctx's deadline passed), CONNREFUSED, HOSTUNREACH, IO (any other
// connection failure, a malformed answer or a head over HeadLimit), INVAL
// (a method or header that cannot be sent). When ctx is cancelled without
// reaching its deadline (the pod is stopping) Do returns ctx's error, which
// the pod turns into K32_ERR_INTR. A body larger than call.RespCap is no
// error: the result holds the first RespCap bytes with Truncated set.
func (o *Outside) Do(ctx context.Context, t Target, call pod.Call) (pod.CallResult, error) {
	if t.Kind != OutsideTarget || t.Scheme != "http" {
		return pod.CallResult{}, fmt.Errorf("call %s: not a plain http:// host outside the cluster", t.Addr())
	}
	req, err := buildRequest(t, call)
	if err != nil {
		return pod.CallResult{}, err
	}
	conn, err := o.dial(ctx, call.From, t)
	if err != nil {
		return pod.CallResult{}, err
	}
	defer conn.Close()
	// Every read and write below ends at ctx's deadline, and at once when
	// ctx is cancelled: a past deadline wakes blocked I/O.
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	// Write and read at once: a host may answer (413, 401, …) before it
	// takes the whole body, or never take it; its answer counts, and
	// closing the connection then ends the write.
	written := make(chan struct{})
	go func() {
		defer close(written)
		bufs := net.Buffers{req, call.Body}
		bufs.WriteTo(conn) // a failed write shows as a failed read below
	}()
	res, err := readResponse(bufio.NewReaderSize(conn, 4096), o.headLimit(), call.Method, call.RespCap)
	conn.Close()
	<-written
	if err != nil {
		return pod.CallResult{}, IOErrno(ctx, err)
	}
	return res, nil
}

// headLimit returns HeadLimit or its default.
func (o *Outside) headLimit() int {
	if o.HeadLimit > 0 {
		return o.HeadLimit
	}
	return abi.ControlPlaneHeadLimit
}

// dial opens the connection of the pod from to the OutsideTarget t:
// http:// here, https:// under TLS. It looks t's host up (lookup), checks
// each address against the pod's NetworkPolicies and dials the first that
// they allow and that accepts (connect). The egress gateway's calls and,
// on a worker, those relayed through the control plane come this way too.
func (o *Outside) dial(ctx context.Context, from string, t Target) (net.Conn, error) {
	addrs, err := o.lookup(ctx, t.Host)
	if err != nil {
		return nil, err
	}
	return o.connect(ctx, from, addrs, t.Port)
}

// lookup resolves host to the IPv4 addresses a connection reaches
// (destAddr): an address needs no lookup, nor does "localhost"; a name's
// addresses come from one lookup, and the connection then goes to one of
// them, never to a second lookup's answer.
func (o *Outside) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok, err := hostAddr(host); ok {
		if err != nil {
			return nil, err
		}
		return []netip.Addr{a}, nil
	}
	if localhostName(host) {
		return []netip.Addr{loopbackIP}, nil
	}
	if o.Route != nil {
		if err := o.Route.Names(ctx); err != nil {
			return nil, err
		}
	}
	r := o.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	found, err := r.LookupNetIP(ctx, "ip4", host)
	var addrs []netip.Addr
	for _, a := range found {
		if a, err := destAddr(a); err == nil {
			addrs = append(addrs, a)
		}
	}
	switch {
	case err == nil && len(addrs) > 0:
		return addrs, nil
	case ctx.Err() == context.DeadlineExceeded:
		return nil, abi.ErrTimeout
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	// Not found, no answer from the name server, no server at all: to the
	// pod, the name does not resolve.
	return nil, abi.ErrNoEnt
}

// connect opens one connection to the first of addrs (lookup's) that the
// pod's NetworkPolicies allow and that accepts it, dialling the very
// address checked.
func (o *Outside) connect(ctx context.Context, from string, addrs []netip.Addr, port int) (net.Conn, error) {
	dial := o.Dial
	switch {
	case dial != nil:
	case o.Route != nil:
		dial = o.Route.Dial
	default:
		dial = (&net.Dialer{}).DialContext
	}
	// An address refused while another connects is no refusal of the
	// call: only the one the call ends with is logged.
	checkCtx := context.WithValue(ctx, callerLogs{}, true)
	var first error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a, uint16(port))
		if err := o.Policy.CheckHost(checkCtx, from, ap); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		conn, err := dial(ctx, "tcp4", ap.String())
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = dialErrno(ctx, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	o.Policy.logRefusal(ctx, first)
	return nil, first
}
