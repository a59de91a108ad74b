package apiauth

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

const rightToken = "the-cluster-token"

// mounted is a port with one handler mounted behind the gate at
// "/mounted/", one public at "GET /public", and the counts of the requests
// each handler was called for.
type mounted struct {
	*httptest.Server
	calls, publicCalls atomic.Int64
}

func newMounted(t *testing.T, token string, tls bool) *mounted {
	m := &mounted{}
	port := NewMux(New(Config{Token: token}))
	port.Handle("/mounted/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.calls.Add(1)
		io.WriteString(w, "mounted data")
	}))
	port.HandlePublic("GET /public", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.publicCalls.Add(1)
		io.WriteString(w, "public")
	}))
	m.Server = testhttp.Start(t, port, tls)
	return m
}

// do sends method path with the header h (Authorization or Cookie) and
// returns the status and the body.
func (m *mounted) do(t *testing.T, method, path, header, value string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, m.URL+path, nil)
	if header != "" {
		req.Header.Set(header, value)
	}
	resp, err := m.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// rawGet sends GET path over a new connection to addr with the path as it
// is (a client would clean it) and returns the status.
func rawGet(t *testing.T, addr, path string) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, addr)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMountedHandlerIsRefusedWithoutTheToken is the rule of docs/design.md,
// "One token check on the API port": a handler mounted with Handle is
// never called without the cluster token (401, a Status as the API
// answers) nor with a wrong one, and is served with it as a bearer token,
// or over HTTPS for a read with the session cookie.
func TestMountedHandlerIsRefusedWithoutTheToken(t *testing.T) {
	plain, tls := newMounted(t, rightToken, false), newMounted(t, rightToken, true)
	for _, c := range []struct {
		m             *mounted
		method        string
		header, value string
		want          int
	}{
		{plain, http.MethodGet, "", "", http.StatusUnauthorized},
		{plain, http.MethodGet, "Authorization", "Bearer wrong", http.StatusUnauthorized},
		{plain, http.MethodPost, "Authorization", "Bearer wrong", http.StatusUnauthorized},
		{plain, http.MethodGet, "Cookie", abi.SessionCookie + "=" + rightToken, http.StatusUnauthorized},
		{tls, http.MethodPost, "Cookie", abi.SessionCookie + "=" + rightToken, http.StatusUnauthorized},
	} {
		before := c.m.calls.Load()
		code, body := c.m.do(t, c.method, "/mounted/x", c.header, c.value)
		if code != c.want || !strings.Contains(body, `"reason":"Unauthorized"`) {
			t.Errorf("%s %s with %s %q: %d %q, want 401 Unauthorized Status", c.method, c.m.URL, c.header, c.value, code, body)
		}
		if c.m.calls.Load() != before {
			t.Errorf("%s %s with %s %q: the mounted handler was called", c.method, c.m.URL, c.header, c.value)
		}
	}
	for _, c := range []struct {
		m             *mounted
		method        string
		header, value string
	}{
		{plain, http.MethodGet, "Authorization", "Bearer " + rightToken},
		{plain, http.MethodPost, "Authorization", "Bearer " + rightToken},
		{tls, http.MethodGet, "Cookie", abi.SessionCookie + "=" + rightToken},
	} {
		if code, body := c.m.do(t, c.method, "/mounted/x", c.header, c.value); code != http.StatusOK || body != "mounted data" {
			t.Errorf("%s %s with %s: %d %q, want 200 and the mounted handler's answer", c.method, c.m.URL, c.header, code, body)
		}
	}
}

// TestOnlyWhatIsMountedPublicSkipsTheToken: HandlePublic serves without
// the token; a path nothing matches, a method its pattern does not take,
// a path not clean and a CONNECT with no handler meet the gate first, so that they tell a
// client without the token nothing; an open gate (no token) lets all in.
func TestOnlyWhatIsMountedPublicSkipsTheToken(t *testing.T) {
	m := newMounted(t, rightToken, false)
	if code, body := m.do(t, http.MethodGet, "/public", "", ""); code != http.StatusOK || body != "public" {
		t.Errorf("GET /public without the token: %d %q, want 200", code, body)
	}
	for _, c := range []struct{ method, path string }{{http.MethodGet, "/elsewhere"}, {http.MethodPost, "/public"}} {
		if code, _ := m.do(t, c.method, c.path, "", ""); code != http.StatusUnauthorized {
			t.Errorf("%s %s without the token: %d, want 401", c.method, c.path, code)
		}
	}
	for _, p := range []string{"//mounted/x", "/public/../mounted/x", "/mounted/./x"} {
		if code := rawGet(t, m.Listener.Addr().String(), p); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401 before the redirect to the clean path", p, code)
		}
	}
	if code, _ := m.do(t, http.MethodPost, "/public", "Authorization", "Bearer "+rightToken); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /public with the token: %d, want 405", code)
	}
	if code, _ := m.do(t, http.MethodGet, "/elsewhere", "Authorization", "Bearer "+rightToken); code != http.StatusNotFound {
		t.Errorf("GET /elsewhere with the token: %d, want 404", code)
	}
	// CONNECT through the real socket: its request line names a host.
	req, _ := http.NewRequest(http.MethodConnect, m.URL, nil)
	req.Host = "example.com:443"
	resp, err := m.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("CONNECT without a handler nor the token: %d, want 401", resp.StatusCode)
	}
	open := newMounted(t, "", false)
	if code, body := open.do(t, http.MethodGet, "/mounted/x", "", ""); code != http.StatusOK || body != "mounted data" {
		t.Errorf("GET /mounted/x with no cluster token: %d %q, want 200", code, body)
	}
}
