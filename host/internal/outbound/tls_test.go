package outbound

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// httpsCall makes call c to url with s and a ctx bounded by timeout.
func httpsCall(t *testing.T, s *TLS, c pod.Call, timeout time.Duration) (pod.CallResult, error) {
	t.Helper()
	tg, ctx, cancel := prepare(t, &c, timeout)
	defer cancel()
	return s.CallHTTPS(ctx, tg, c)
}

// hello answers with what it received.
var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Host", r.Host)
	b, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "%s %s tls=%x x-a=%s body=%s", r.Method, r.URL.Path, r.TLS.Version, r.Header.Get("X-A"), b)
})

func TestTLSCalls(t *testing.T) {
	ca := testtls.NewCA(t)
	good := ca.Issue(t, testtls.Leaf{DNSNames: []string{"secure.test"}, IPs: []string{loopback(70)}})
	log := &testenv.Lines{}
	resolver := fakeDNS(t, loopback(53), map[string]string{"secure.test": loopback(70)})
	s := &TLS{Roots: ca.Pool(), Policy: noPolicies, Resolver: resolver, Logf: log.Logf}
	addr := testtls.Serve(t, loopback(70), good, 0, 0, hello)
	_, port, _ := strings.Cut(addr, ":")

	t.Run("by address, TLS 1.2, headers and body", func(t *testing.T) {
		res, err := httpsCall(t, s, pod.Call{Method: "POST", URL: "https://" + addr + "/p", Body: []byte("hi"),
			Header: http.Header{"X-A": {"1"}, "X-Kube32-Pod": {"forged"}}}, hangGuard)
		if err != nil || res.Status != 200 || string(res.Body) != "POST /p tls=303 x-a=1 body=hi" || res.Header.Get("X-Host") != addr {
			t.Fatalf("got %+v %q, %v", res, res.Body, err)
		}
	})
	t.Run("by DNS name", func(t *testing.T) {
		res, err := httpsCall(t, s, pod.Call{URL: "https://secure.test:" + port + "/n"}, hangGuard)
		if err != nil || res.Status != 200 || !strings.HasPrefix(string(res.Body), "GET /n ") {
			t.Fatalf("got %+v %q, %v", res, res.Body, err)
		}
	})
	t.Run("body over resp_cap is truncated", func(t *testing.T) {
		res, err := httpsCall(t, s, pod.Call{URL: "https://" + addr + "/", RespCap: 3}, hangGuard)
		if err != nil || !res.Truncated || string(res.Body) != "GET" {
			t.Fatalf("got %+v, %v", res, err)
		}
	})
	t.Run("NetworkPolicy checks the connection", func(t *testing.T) {
		var checked netip.AddrPort
		allow := func(_ context.Context, from string, a netip.AddrPort) error {
			checked = a
			return &DeniedError{From: from, Target: a.String(), Reason: "no"}
		}
		denying := &TLS{Roots: s.Roots, Resolver: s.Resolver, Policy: policyOf(allow)}
		_, err := httpsCall(t, denying, pod.Call{URL: "https://" + addr + "/"}, hangGuard)
		var denied *DeniedError
		if !errors.As(err, &denied) || checked.String() != addr {
			t.Fatalf("error %v, checked %v", err, checked)
		}
		wantErrno(t, err, abi.ErrPerm)
	})
	t.Run("wrong name is CERT", func(t *testing.T) {
		other := testtls.Serve(t, loopback(71), good, 0, 0, hello) // names 127.0.0.70, not .71
		_, err := httpsCall(t, s, pod.Call{From: "default/namer", URL: "https://" + other + "/"}, hangGuard)
		wantErrno(t, err, abi.ErrCert)
		if want := "[EGRESS] default/namer -> https://" + other + ": certificate rejected: "; !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	})
	t.Run("expired is CERT", func(t *testing.T) {
		old := ca.Issue(t, testtls.Leaf{IPs: []string{loopback(72)}, NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour)})
		a := testtls.Serve(t, loopback(72), old, 0, 0, hello)
		_, err := httpsCall(t, s, pod.Call{URL: "https://" + a + "/"}, hangGuard)
		wantErrno(t, err, abi.ErrCert)
	})
	t.Run("untrusted CA is CERT", func(t *testing.T) {
		stranger := testtls.NewCA(t).Issue(t, testtls.Leaf{IPs: []string{loopback(73)}})
		a := testtls.Serve(t, loopback(73), stranger, 0, 0, hello)
		_, err := httpsCall(t, s, pod.Call{URL: "https://" + a + "/"}, hangGuard)
		wantErrno(t, err, abi.ErrCert)
	})
	t.Run("TLS 1.3 only is TLS", func(t *testing.T) {
		a := testtls.Serve(t, loopback(74), ca.Issue(t, testtls.Leaf{IPs: []string{loopback(74)}}), tls.VersionTLS13, tls.VersionTLS13, hello)
		_, err := httpsCall(t, s, pod.Call{URL: "https://" + a + "/"}, hangGuard)
		wantErrno(t, err, abi.ErrTLS)
	})
	t.Run("not TLS at all is TLS", func(t *testing.T) {
		ln, err := net.Listen("tcp4", loopback(75)+":0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
				c.Close()
			}
		}()
		_, err = httpsCall(t, s, pod.Call{URL: "https://" + ln.Addr().String() + "/"}, hangGuard)
		wantErrno(t, err, abi.ErrTLS)
	})
	t.Run("slow host times out", func(t *testing.T) {
		stall := make(chan struct{})
		defer close(stall)
		a := testtls.Serve(t, loopback(76), ca.Issue(t, testtls.Leaf{IPs: []string{loopback(76)}}), 0, 0,
			http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-stall }))
		_, err := httpsCall(t, s, pod.Call{URL: "https://" + a + "/"}, 200*time.Millisecond)
		wantErrno(t, err, abi.ErrTimeout)
	})
	s.mu.Lock()
	busy := s.busy
	s.mu.Unlock()
	if busy != 0 {
		t.Errorf("%d sessions still taken after every call ended", busy)
	}
}

func TestTLSSessionsAreBusy(t *testing.T) {
	ca := testtls.NewCA(t)
	s := &TLS{Roots: ca.Pool(), Policy: noPolicies}
	arrived := make(chan struct{}, 2)
	release := make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		io.WriteString(w, "slow")
	})
	var addrs []string
	for i := 77; i <= 78; i++ {
		addrs = append(addrs, testtls.Serve(t, loopback(i), ca.Issue(t, testtls.Leaf{IPs: []string{loopback(i)}}), 0, 0, slow))
	}
	fast := testtls.Serve(t, loopback(79), ca.Issue(t, testtls.Leaf{IPs: []string{loopback(79)}}), 0, 0, hello)

	results := make(chan error, 2)
	for _, a := range addrs {
		go func() {
			_, err := httpsCall(t, s, pod.Call{URL: "https://" + a + "/"}, hangGuard)
			results <- err
		}()
	}
	<-arrived
	<-arrived
	_, err := httpsCall(t, s, pod.Call{URL: "https://" + fast + "/"}, hangGuard)
	wantErrno(t, err, abi.ErrBusy)
	close(release)
	for range addrs {
		if err := <-results; err != nil {
			t.Errorf("held call: %v", err)
		}
	}
	if res, err := httpsCall(t, s, pod.Call{URL: "https://" + fast + "/"}, hangGuard); err != nil || res.Status != 200 {
		t.Fatalf("after the sessions freed: %+v, %v", res, err)
	}
}

func TestCallerHTTPS(t *testing.T) {
	c := &Caller{}
	_, err := c.HTTPCall(context.Background(), pod.Call{From: "default/a", Method: "GET", URL: "https://127.0.0.1/", RespCap: 10})
	wantErrno(t, err, abi.ErrNotSup)

	ca := testtls.NewCA(t)
	a := testtls.Serve(t, loopback(70), ca.Issue(t, testtls.Leaf{IPs: []string{loopback(70)}}), 0, 0, hello)
	var allowed string
	c = &Caller{HTTPS: &TLS{Roots: ca.Pool(), Policy: policyOf(func(_ context.Context, from string, addr netip.AddrPort) error {
		allowed = from + " " + addr.String()
		return nil
	})}}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := c.HTTPCall(ctx, pod.Call{From: "default/a", Method: "GET", URL: "https://" + a + "/x", RespCap: 100})
	if err != nil || res.Status != 200 || allowed != "default/a "+a {
		t.Fatalf("got %+v, %v; allow saw %q", res, err, allowed)
	}
}
