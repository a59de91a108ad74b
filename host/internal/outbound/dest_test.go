package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/netpol"
	"github.com/kube32/kube32/host/internal/pod"
)

// noLoopback is the policy of the attack: the pod may call anything but
// loopback.
var noLoopback = &networkingv1.NetworkPolicy{
	ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "no-loopback"},
	Spec: networkingv1.NetworkPolicySpec{
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
		Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{
			{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"127.0.0.0/8"}}}}}},
	},
}

// destProbe records the addresses a Caller checks against NetworkPolicy
// and those it dials, and denies with noLoopback when deny is set.
type destProbe struct {
	mu      sync.Mutex
	deny    bool
	checked []string
	dialled []string
}

func (p *destProbe) allow(_ context.Context, from string, addr netip.AddrPort) error {
	p.mu.Lock()
	p.checked = append(p.checked, addr.String())
	deny := p.deny
	p.mu.Unlock()
	if !deny {
		return nil
	}
	namespace, name, _ := strings.Cut(from, "/")
	d := netpol.Evaluate(netpol.Pod{Namespace: namespace, Name: name}, []*networkingv1.NetworkPolicy{noLoopback}, nil,
		netpol.Dest{Addr: addr.Addr(), Port: int32(addr.Port())})
	if !d.Allowed {
		return &DeniedError{From: from, Target: addr.String(), Reason: d.Reason}
	}
	return nil
}

// dialWith records the address and dials it with next when it is a
// loopback address; tests reach nothing else (another address is refused).
func (p *destProbe) dialWith(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		p.mu.Lock()
		p.dialled = append(p.dialled, addr)
		p.mu.Unlock()
		if ap, err := netip.ParseAddrPort(addr); err != nil || !ap.Addr().IsLoopback() {
			return nil, syscall.ECONNREFUSED
		}
		return next(ctx, network, addr)
	}
}

func (p *destProbe) reset(deny bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deny, p.checked, p.dialled = deny, nil, nil
}

func (p *destProbe) seen() (checked, dialled []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.checked...), append([]string(nil), p.dialled...)
}

// okServer answers every request on 127.0.0.1 with 200 "ok" and returns
// its host:port.
func okServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// ownIPv4 is an IPv4 address of this machine other than loopback, if any.
func ownIPv4() (netip.Addr, bool) {
	addrs, _ := net.InterfaceAddrs()
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(n.IP); ok && a.Unmap().Is4() && !a.IsLoopback() {
				return a.Unmap(), true
			}
		}
	}
	return netip.Addr{}, false
}

// TestEveryAddressSpellingIsCheckedAsTheAddressDialled checks
// docs/networkpolicy.md, "Which address a policy sees": every way of
// writing an address of the local host, and every name for it, is checked
// against NetworkPolicy as the address the node then dials, on every way
// out (http:// directly, http:// through a worker's relay, https://), so
// that "0.0.0.0/0 except 127.0.0.0/8" denies each one; spellings that are
// no IPv4 address are K32_ERR_INVAL, and "localhost" over http:// is the
// Service of that name (docs/calls.md, "Where a URL goes").
func TestEveryAddressSpellingIsCheckedAsTheAddressDialled(t *testing.T) {
	_, port, _ := net.SplitHostPort(okServer(t))
	local := "127.0.0.1:" + port
	names := map[string]string{"loop.test": "127.0.0.1", "zero.test": "0.0.0.0", "far.test": "203.0.113.7"}
	own, haveOwn := ownIPv4()
	if haveOwn {
		names["own.test"] = own.String()
	}
	resolver := fakeDNS(t, loopback(130), names)

	type row struct {
		host    string   // the URL's host
		checked []string // addresses checked, in order ("" entries: none)
		err     abi.Errno
		allowed bool // under noLoopback (a host that is not the local one)
	}
	rows := []row{
		{host: "127.0.0.1", checked: []string{local}},
		{host: "0.0.0.0", checked: []string{local}},
		{host: "0", checked: []string{local}},
		{host: "127.1", checked: []string{local}},
		{host: "2130706433", checked: []string{local}},
		{host: "0x7f000001", checked: []string{local}},
		{host: "0177.0.0.1", checked: []string{local}},
		{host: "0x7f.1", checked: []string{local}},
		{host: "127.000.000.001", checked: []string{local}},
		{host: "127.0.0.1.", checked: []string{local}},
		{host: "loop.test", checked: []string{local}},
		{host: "zero.test", checked: []string{local}},
		{host: "app.localhost", checked: []string{local}}, // no Service "app" in namespace "localhost": the host outside
		{host: "[::]", err: abi.ErrInval},
		{host: "[::1]", err: abi.ErrInval},
		{host: "[::ffff:127.0.0.1]", err: abi.ErrInval},
		{host: "::ffff:127.0.0.1", err: abi.ErrInval},
		{host: "127.0.0.256", err: abi.ErrInval},
		{host: "08.0.0.1", err: abi.ErrInval},
		{host: "1.2.3.4.5", err: abi.ErrInval},
		{host: "4294967296", err: abi.ErrInval},
		{host: "203.0.113.7", checked: []string{"203.0.113.7:" + port}, err: abi.ErrConnRefused, allowed: true},
		{host: "far.test", checked: []string{"203.0.113.7:" + port}, err: abi.ErrConnRefused, allowed: true},
	}
	if haveOwn {
		ownPort := own.String() + ":" + port
		rows = append(rows,
			row{host: own.String(), checked: []string{ownPort, local}, err: abi.ErrConnRefused},
			row{host: "own.test", checked: []string{ownPort, local}, err: abi.ErrConnRefused})
	} else {
		t.Log("this machine has no IPv4 address but loopback: no row for one")
	}

	probe := &destProbe{}
	u := NewUplink(true, "127.0.0.53", nil)
	relay := &Relay{API: relayServer(t, u), NodeIP: loopback(2)}
	direct := (&net.Dialer{}).DialContext
	ways := map[string]*Caller{
		"http://": {Outside: &Outside{Resolver: resolver, Policy: policyOf(probe.allow), Dial: probe.dialWith(direct)}},
		"http:// through the relay": {Outside: &Outside{Resolver: resolver, Policy: policyOf(probe.allow), Route: relay,
			Dial: probe.dialWith(relay.Dial)}},
		"https://": {HTTPS: &TLS{Resolver: resolver, Policy: policyOf(probe.allow), Dial: probe.dialWith(direct)}},
	}
	call := func(c *Caller, url string) error {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		_, err := c.HTTPCall(ctx, pod.Call{From: "default/caller", Method: "GET", URL: url, RespCap: 4096})
		return err
	}
	for way, c := range ways {
		scheme, _, _ := strings.Cut(way, " ")
		for _, r := range rows {
			url := scheme + r.host + ":" + port + "/"
			t.Run(way+" "+r.host, func(t *testing.T) {
				// Without a policy: the addresses checked are those dialled.
				probe.reset(false)
				err := call(c, url)
				checked, dialled := probe.seen()
				if strings.Join(checked, " ") != strings.Join(r.checked, " ") {
					t.Fatalf("%s: checked %v, want %v (err %v)", url, checked, r.checked, err)
				}
				switch {
				case r.err == abi.ErrInval:
					wantErrno(t, err, abi.ErrInval)
				case len(dialled) != 1 || dialled[0] != r.checked[0]:
					t.Fatalf("%s: dialled %v, want exactly the address checked, %s (err %v)", url, dialled, r.checked[0], err)
				case r.err != 0:
					wantErrno(t, err, r.err)
				case scheme == "http://" && err != nil:
					t.Fatalf("%s without a policy: %v", url, err)
				case scheme == "https://" && !errors.Is(err, abi.ErrTLS):
					t.Fatalf("%s to a plain HTTP server: %v, want the handshake to fail", url, err)
				}

				// Under "0.0.0.0/0 except 127.0.0.0/8": denied before any dial.
				probe.reset(true)
				err = call(c, url)
				_, dialled = probe.seen()
				var denied *DeniedError
				switch {
				case r.err == abi.ErrInval:
					wantErrno(t, err, abi.ErrInval)
				case r.allowed:
					wantErrno(t, err, r.err)
				case !errors.As(err, &denied) || !errors.Is(err, abi.ErrPerm):
					t.Fatalf("%s under %s: %v, want K32_ERR_PERM", url, noLoopback.Name, err)
				case len(dialled) != 0:
					t.Fatalf("%s under %s: dialled %v", url, noLoopback.Name, dialled)
				}
			})
		}
	}

	// "localhost" over http:// is the Service of that name in the caller's
	// namespace; without one the call is K32_ERR_NOENT and nothing is
	// checked or dialled. Over https://, and with a final dot, it is the
	// local host, whatever a name server would say.
	for _, host := range []string{"localhost", "LOCALHOST."} {
		probe.reset(true)
		wantErrno(t, call(ways["http://"], "http://"+host+":"+port+"/"), abi.ErrNoEnt)
		if checked, dialled := probe.seen(); len(checked)+len(dialled) != 0 {
			t.Errorf("http://%s: checked %v, dialled %v, want neither", host, checked, dialled)
		}
		probe.reset(false)
		wantErrno(t, call(ways["https://"], "https://"+host+":"+port+"/"), abi.ErrTLS)
		if checked, dialled := probe.seen(); strings.Join(checked, " ") != local || strings.Join(dialled, " ") != local {
			t.Errorf("https://%s: checked %v, dialled %v, want %s", host, checked, dialled, local)
		}
		probe.reset(true)
		wantErrno(t, call(ways["https://"], "https://"+host+":"+port+"/"), abi.ErrPerm)
	}
}

// TestRelayDialsOnlyTheAddressChecked: the control plane's relay dials the
// address a worker asks for only when it is the address a connection
// reaches, the one the worker checked (docs/networkpolicy.md, "Which
// address a policy sees"); 0.0.0.0 and IPv4-mapped IPv6 are refused.
func TestRelayDialsOnlyTheAddressChecked(t *testing.T) {
	_, port, _ := net.SplitHostPort(okServer(t))
	relay := &Relay{API: relayServer(t, NewUplink(true, "127.0.0.53", nil)), NodeIP: loopback(2)}
	for _, tt := range []struct {
		addr string
		err  abi.Errno
	}{
		{"127.0.0.1:" + port, 0},
		{"0.0.0.0:" + port, abi.ErrInval},
		{"[::ffff:127.0.0.1]:" + port, abi.ErrInval},
		{"[::]:" + port, abi.ErrInval},
		{"[::1]:" + port, abi.ErrInval},
		{"localhost:" + port, abi.ErrInval},
		{"127.1:" + port, abi.ErrInval},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		conn, err := relay.Dial(ctx, "tcp4", tt.addr)
		cancel()
		if tt.err == 0 {
			if err != nil {
				t.Fatalf("CONNECT %s: %v", tt.addr, err)
			}
			conn.Close()
			continue
		}
		if conn != nil {
			conn.Close()
		}
		var code abi.Errno
		if !errors.As(err, &code) || code != tt.err {
			t.Errorf("CONNECT %s: %v, want %v", tt.addr, err, tt.err)
		}
	}
}

// TestHostAddrReadsInetAtonSpellings checks the IPv4 spellings hostAddr
// reads as inet_aton does (lower case: URL hosts are read so), and that
// 0.0.0.0 in any spelling is the local host.
func TestHostAddrReadsInetAtonSpellings(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "127.1": "127.0.0.1", "127.0.1": "127.0.0.1", "2130706433": "127.0.0.1",
		"0x7f000001": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0x7f.1": "127.0.0.1", "10.0x10.0300": "10.16.0.192",
		"4294967295": "255.255.255.255", "0": "127.0.0.1", "0x": "127.0.0.1", "0.0.0.0": "127.0.0.1",
		"4294967296": "", "1.16777216": "", "1.2.65536": "", "256.0.0.1": "", "09": "", "1.2.3.4.5": "",
	} {
		a, ok, err := hostAddr(in)
		got := ""
		if err == nil && ok {
			got = a.String()
		}
		if got != want || !ok || want == "" && err == nil {
			t.Errorf("hostAddr(%q) = %q, %v, %v; want %q", in, got, ok, err, want)
		}
	}
	for _, name := range []string{"echo.0x7f", "9lives", "a.b"} {
		if _, ok, err := hostAddr(name); ok || err != nil {
			t.Errorf("hostAddr(%q): ok=%v err=%v, want a name", name, ok, err)
		}
	}
}
