package outbound

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// gatewayOn runs h as an API server on ip.
func gatewayOn(t *testing.T, ip string, h http.HandlerFunc) string {
	t.Helper()
	return testhttp.Serve(t, ip, h).URL
}

// egressCall makes an https:// call through e.
func egressCall(t *testing.T, e *Egress, c pod.Call) (pod.CallResult, error) {
	t.Helper()
	tg, err := ParseTarget(c.URL, "default")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	return e.CallHTTPS(ctx, tg, c)
}

func TestEgressClientRequest(t *testing.T) {
	var got struct {
		remote, query, auth, ctype, msg string
	}
	api := gatewayOn(t, loopback(81), func(w http.ResponseWriter, r *http.Request) {
		got.remote, _, _ = net.SplitHostPort(r.RemoteAddr)
		got.query = r.URL.Path + "?" + r.URL.RawQuery
		got.auth, got.ctype = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		b, _ := io.ReadAll(r.Body)
		got.msg = string(b)
		w.Header().Set(abi.HeaderEgressResult, "201")
		w.Header().Set("X-Host-Header", "h")
		w.WriteHeader(201)
		io.WriteString(w, "0123456789A") // limit+1 bytes, as the gateway stops
	})
	e := &Egress{API: api, Token: "tok", NodeIP: loopback(80)}
	res, err := egressCall(t, e, pod.Call{From: "default/b", Method: "POST", URL: "https://example.test:8443/p?q=1",
		Header: http.Header{"X-A": {"1"}, "X-Kube32-Pod": {"forged"}}, Body: []byte("body"), RespCap: 10})
	if err != nil || res.Status != 201 || !res.Truncated || string(res.Body) != "0123456789" || res.Header.Get("X-Host-Header") != "h" ||
		res.Header.Get(abi.HeaderEgressResult) != "" {
		t.Fatalf("got %+v %q, %v", res, res.Body, err)
	}
	if got.remote != loopback(80) {
		t.Errorf("request came from %s, want the node's InternalIP %s", got.remote, loopback(80))
	}
	if !strings.HasPrefix(got.query, abi.EgressPath+"?pod=default/b&timeout=") || !strings.HasSuffix(got.query, "&limit=10") {
		t.Errorf("request %s", got.query)
	}
	if got.auth != "Bearer tok" || got.ctype != "message/http" {
		t.Errorf("Authorization %q, Content-Type %q", got.auth, got.ctype)
	}
	want := "POST https://example.test:8443/p?q=1 HTTP/1.1\r\nHost: example.test:8443\r\nX-A: 1\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody"
	if got.msg != want {
		t.Errorf("message:\n%q\nwant\n%q", got.msg, want)
	}
}

func TestEgressClientResults(t *testing.T) {
	tests := []struct {
		name   string
		status int
		result abi.Errno // sent in abi.HeaderEgressResult; 0 sends none
		code   abi.Errno
	}{
		{"API server without the gateway", 404, 0, abi.ErrNotSup},
		{"refused by the gateway", 403, abi.ErrPerm, abi.ErrPerm},
		{"unauthorized without a result", 401, 0, abi.ErrPerm},
		{"every session in use", 503, abi.ErrBusy, abi.ErrBusy},
		{"certificate refused", 502, abi.ErrCert, abi.ErrCert},
		{"handshake failed", 502, abi.ErrTLS, abi.ErrTLS},
		{"some other failure", 500, 0, abi.ErrIO},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := gatewayOn(t, loopback(81), func(w http.ResponseWriter, r *http.Request) {
				if tt.result != 0 {
					w.Header().Set(abi.HeaderEgressResult, testpods.Code(tt.result))
				}
				w.WriteHeader(tt.status)
			})
			_, err := egressCall(t, &Egress{API: api}, pod.Call{From: "default/b", Method: "GET", URL: "https://127.0.0.1/", RespCap: 10})
			wantErrno(t, err, tt.code)
		})
	}
}
