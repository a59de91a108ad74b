package outbound

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// TestUplinkLogsEachChange: each change is logged once, the start not
// (docs/nodes.md, "The uplink").
func TestUplinkLogsEachChange(t *testing.T) {
	const up = "[NET] uplink up: NAT from the cluster AP on, DNS 10.0.0.53 offered (internal RAM 0 bytes, PSRAM 16384 bytes)"
	const down = "[NET] uplink down: NAT from the cluster AP off"
	var log testenv.Lines
	u := NewUplink(true, "10.0.0.53", log.Logf)
	u.Set(true)
	u.Set(false)
	u.Set(false)
	u.Set(true)
	// No line at start: the uplink starting up is no change.
	if got, want := log.String(), strings.Join([]string{down, up}, "\n"); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}

	var quiet testenv.Lines
	if NewUplink(false, "10.0.0.53", quiet.Logf).Up() || quiet.String() != "" {
		t.Errorf("an uplink that starts down: up or logged %q", quiet.String())
	}
}

func TestSystemNameServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "resolv.conf")
	os.WriteFile(path, []byte("# generated\nsearch example.test\nnameserver 10.1.2.3\nnameserver 10.1.2.4\n"), 0o644)
	if got := SystemNameServer(path); got != "10.1.2.3" {
		t.Errorf("SystemNameServer = %q, want the first nameserver", got)
	}
	if got := SystemNameServer(filepath.Join(t.TempDir(), "none")); got != "127.0.0.1" {
		t.Errorf("SystemNameServer without a file = %q, want Go's default 127.0.0.1", got)
	}
}

// TestControlPlaneRouteWhileDown: the control plane's own calls while its
// station has no address: no name server, no route.
func TestControlPlaneRouteWhileDown(t *testing.T) {
	s := startServer(t, loopback(120), answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	_, port, _ := net.SplitHostPort(s.addr)
	u := NewUplink(true, "127.0.0.53", nil)
	o := &Outside{Policy: noPolicies, Route: u, Resolver: fakeDNS(t, loopback(121), map[string]string{"host.outside.test": loopback(120)})}
	byName, byAddr := pod.Call{URL: "http://host.outside.test:" + port + "/"}, pod.Call{URL: "http://" + s.addr + "/"}

	for _, c := range []pod.Call{byName, byAddr} {
		if res, err := doCall(t, o, c, hangGuard); err != nil || string(res.Body) != "ok" {
			t.Fatalf("%s with the uplink up: %+v, %v", c.URL, res, err)
		}
	}
	u.Set(false)
	_, err := doCall(t, o, byName, hangGuard)
	wantErrno(t, err, abi.ErrNoEnt)
	_, err = doCall(t, o, byAddr, hangGuard)
	wantErrno(t, err, abi.ErrHostUnreach)
	u.Set(true)
	if res, err := doCall(t, o, byAddr, hangGuard); err != nil || string(res.Body) != "ok" {
		t.Fatalf("with the uplink up again: %+v, %v", res, err)
	}
}

// relayServer serves what the API server serves of the uplink to a worker,
// with its handlers: the state on GET and the relay on CONNECT, for the
// node w2 at loopback(2), which the workers of these tests dial from.
func relayServer(t *testing.T, u *Uplink) string {
	t.Helper()
	s := store.New()
	s.Apply(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w2"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: loopback(2)}}}})
	relay, state := u.RelayHandler(&Nodes{Store: s}), u.StateHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodConnect:
			relay.ServeHTTP(w, r)
		case r.Method == http.MethodGet && r.URL.Path == abi.UplinkPath:
			state.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestWorkerRouteThroughTheControlPlane: a worker's calls go through the
// control plane's relay; while its uplink is down, names do not resolve
// and connections wait, their packets dropped, until the call times out.
func TestWorkerRouteThroughTheControlPlane(t *testing.T) {
	s := startServer(t, loopback(122), answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	refused, err := net.Listen("tcp4", loopback(124)+":0")
	if err != nil {
		t.Fatal(err)
	}
	refusedAddr := refused.Addr().String()
	refused.Close()
	_, port, _ := net.SplitHostPort(s.addr)
	u := NewUplink(true, "127.0.0.53", nil)
	o := &Outside{Policy: noPolicies, HeadLimit: abi.WorkerHeadLimit, Route: &Relay{API: relayServer(t, u), NodeIP: loopback(2)},
		Resolver: fakeDNS(t, loopback(123), map[string]string{"host.outside.test": loopback(122)})}
	byName, byAddr := pod.Call{URL: "http://host.outside.test:" + port + "/"}, pod.Call{URL: "http://" + s.addr + "/"}

	for _, c := range []pod.Call{byName, byAddr} {
		if res, err := doCall(t, o, c, hangGuard); err != nil || string(res.Body) != "ok" {
			t.Fatalf("%s with the uplink up: %+v, %v", c.URL, res, err)
		}
	}
	_, err = doCall(t, o, pod.Call{URL: "http://" + refusedAddr + "/"}, hangGuard)
	wantErrno(t, err, abi.ErrConnRefused) // the host's refusal comes back through the relay

	u.Set(false)
	_, err = doCall(t, o, byName, hangGuard)
	wantErrno(t, err, abi.ErrNoEnt)
	_, err = doCall(t, o, byAddr, 300*time.Millisecond)
	wantErrno(t, err, abi.ErrTimeout)

	u.Set(true)
	if res, err := doCall(t, o, byAddr, hangGuard); err != nil || string(res.Body) != "ok" {
		t.Fatalf("with the uplink up again: %+v, %v", res, err)
	}
}

// TestUplinkDownCutsRelayedConnections: a call in flight when NAT goes off
// gets no more bytes and times out, as on the boards, rather than seeing
// the connection end.
func TestUplinkDownCutsRelayedConnections(t *testing.T) {
	s := startServer(t, loopback(125), func(c net.Conn, _ *received) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab")
		io.Copy(io.Discard, c) // the rest never comes
	})
	u := NewUplink(true, "127.0.0.53", nil)
	o := &Outside{Policy: noPolicies, Route: &Relay{API: relayServer(t, u), NodeIP: loopback(2)}}
	errs := make(chan error, 1)
	go func() {
		c := pod.Call{URL: "http://" + s.addr + "/"}
		tg, ctx, cancel := prepare(t, &c, 2*time.Second)
		defer cancel()
		_, err := o.Do(ctx, tg, c)
		errs <- err
	}()
	<-s.reqs // the host has the request
	u.Set(false)
	wantErrno(t, <-errs, abi.ErrTimeout)
}
