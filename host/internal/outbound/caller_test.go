package outbound

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// fakeServices knows the Services in known ("namespace/name") and records
// each target it is asked for.
type fakeServices struct {
	known map[string]bool
	asked []Target
}

func (f *fakeServices) CallService(_ context.Context, t Target, c pod.Call) (pod.CallResult, error) {
	f.asked = append(f.asked, t)
	if !f.known[t.Namespace+"/"+t.Service] {
		return pod.CallResult{}, fmt.Errorf("services: %s/%s: %w", t.Namespace, t.Service, service.ErrNoService)
	}
	return pod.CallResult{Status: 200, Body: []byte("from " + t.Service), Header: ServiceHeader(c.Header)}, nil
}

func TestCallerRoutesByTarget(t *testing.T) {
	s := startServer(t, loopback(40), answer("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\noutside"))
	_, port, _ := net.SplitHostPort(s.addr)
	services := &fakeServices{known: map[string]bool{"team/echo": true, "other/echo": true}}
	c := &Caller{
		Outside:  &Outside{Policy: noPolicies, Resolver: fakeDNS(t, loopback(53), map[string]string{"echo.example": loopback(40), "www.example.test": loopback(40)})},
		Services: services,
	}
	tests := []struct {
		rule string
		url  string
		body string
		err  abi.Errno
	}{
		{"<service> calls the Service of the caller's namespace", "http://echo/", "from echo", 0},
		{"<service>.<namespace> calls that Service when it exists", "http://echo.other/", "from echo", 0},
		{"<service>.<namespace> falls back to a host outside", "http://echo.example:" + port + "/", "outside", 0},
		{"<service>.<namespace>.svc does not fall back", "http://echo.example.svc/", "", abi.ErrNoEnt},
		{"<service> does not fall back", "http://nosuch/", "", abi.ErrNoEnt},
		{"other names go outside", "http://www.example.test:" + port + "/", "outside", 0},
		{"an IPv4 address goes outside", "http://" + s.addr + "/", "outside", 0},
		{"https:// is not supported yet", "https://www.example.test/", "", abi.ErrNotSup},
		{"a malformed URL is INVAL", "gopher://echo/", "", abi.ErrInval},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			res, err := c.HTTPCall(ctx, pod.Call{From: "team/caller", Method: "GET", URL: tt.url, RespCap: 100})
			if tt.err != 0 {
				wantErrno(t, err, tt.err)
				return
			}
			if err != nil || string(res.Body) != tt.body {
				t.Fatalf("result %q, %v; want %q", res.Body, err, tt.body)
			}
		})
	}
	if got := services.asked[0]; got.Namespace != "team" || got.Service != "echo" || got.Port != 0 {
		t.Errorf("first Service target %+v, want team/echo on its first port", got)
	}
}

func TestCallerWithoutServices(t *testing.T) {
	c := &Caller{}
	for _, url := range []string{"http://echo/", "http://echo.team.svc.cluster.local/"} {
		_, err := c.HTTPCall(context.Background(), pod.Call{From: "team/caller", Method: "GET", URL: url})
		wantErrno(t, err, abi.ErrNoEnt)
	}
	// "<service>.<namespace>" is looked up outside; .invalid never resolves.
	c.Outside = &Outside{Policy: noPolicies, Resolver: fakeDNS(t, loopback(53), nil)}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	_, err := c.HTTPCall(ctx, pod.Call{From: "team/caller", Method: "GET", URL: "http://echo.invalid/"})
	wantErrno(t, err, abi.ErrNoEnt)
}

func TestCallerTimeout(t *testing.T) {
	s := startServer(t, loopback(41), func(c net.Conn, _ *received) { io.Copy(io.Discard, c) })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := (&Caller{Outside: &Outside{Policy: noPolicies}}).HTTPCall(ctx, pod.Call{From: "team/caller", Method: "GET", URL: "http://" + s.addr + "/"})
	wantErrno(t, err, abi.ErrTimeout)
}

// The node's edge fails closed: a Caller whose Outside has no Policy
// connects nowhere (docs/networkpolicy.md).
func TestCallerWithoutPolicyRefusesHostsOutside(t *testing.T) {
	s := startServer(t, loopback(42), answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	_, err := (&Caller{}).HTTPCall(ctx, pod.Call{From: "team/caller", Method: "GET", URL: "http://" + s.addr + "/"})
	wantErrno(t, err, abi.ErrPerm)
	if len(s.reqs) != 0 {
		t.Errorf("the host got %d requests, want none", len(s.reqs))
	}
}

func TestServiceHeader(t *testing.T) {
	h := http.Header{"Content-Type": {"application/json"}, "Cookie": {"a=1", "b=2"}, "X-Request-Id": {"r1"},
		"Accept-Encoding": {"gzip"}, "Authorization": {"Bearer t"}, "X-Kube32-Pod": {"x/y"}, "Accept": {"*/*"}}
	got := ServiceHeader(h)
	want := http.Header{"Content-Type": {"application/json"}, "Cookie": {"a=1", "b=2"}, "X-Request-Id": {"r1"}, "Accept-Encoding": {"gzip"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ServiceHeader = %v, want %v", got, want)
	}
}
