package apiauth

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hostPort is a port with one handler mounted behind the gate and one
// public, as newMounted, with the gate's accepted hosts.
func hostPort(t *testing.T, token, acceptHosts string) *httptest.Server {
	t.Helper()
	hosts, err := ParseAcceptHosts(acceptHosts)
	if err != nil {
		t.Fatal(err)
	}
	port := NewMux(New(Config{Token: token, AcceptHosts: hosts}))
	port.Handle("/mounted/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "mounted data") }))
	port.HandlePublic("GET /public", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "public") }))
	srv := httptest.NewServer(port)
	t.Cleanup(srv.Close)
	return srv
}

// withHost sends GET path to srv (over its loopback socket) with the Host
// header host and returns the status and body.
func withHost(t *testing.T, srv *httptest.Server, path, host string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	req.Host = host
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestPortWithoutTokenAnswersOnlyItsOwnHostNames is the rule of
// docs/serve.md, "Web pages": without a token, a request is answered only
// when its Host names this machine (an address of 127.0.0.0/8, ::1, or
// localhost, with or without a port) or matches --accept-hosts as a whole
// name, in any case; any other Host, the public paths' included, gets 403
// as a Status that names the Host and the flag.
func TestPortWithoutTokenAnswersOnlyItsOwnHostNames(t *testing.T) {
	srv := hostPort(t, "", `.*\.lan,build-box`)
	for _, host := range []string{
		"127.0.0.1", "127.0.0.1:6443", "127.0.0.2:6443", "127.255.255.254:1", "[::1]:6443", "[::1]", "[::ffff:127.0.0.1]:6443",
		"localhost", "localhost:6443", "LocalHost:6443",
		"dev.lan:6443", "DEV.LAN", "build-box:6443",
	} {
		for _, path := range []string{"/mounted/x", "/public"} {
			if code, _ := withHost(t, srv, path, host); code != http.StatusOK {
				t.Errorf("GET %s with Host %q: %d, want 200", path, host, code)
			}
		}
	}
	for _, host := range []string{
		"evil.example", "evil.example:6443", "localhost.evil.example", "127.0.0.1.evil.example", "localhost.",
		"0.0.0.0:6443", "10.0.0.1:6443", "[::2]:6443", "[fe80::1]:6443",
		"lan", "dev.lan.evil.example", "build-box.evil.example", "evil-build-box",
	} {
		for _, path := range []string{"/mounted/x", "/public", "/elsewhere"} {
			code, body := withHost(t, srv, path, host)
			var st metav1.Status
			if err := json.Unmarshal([]byte(body), &st); err != nil || code != http.StatusForbidden || st.Reason != metav1.StatusReasonForbidden ||
				!strings.Contains(st.Message, `Host "`+host+`"`) || !strings.Contains(st.Message, AcceptHostsFlag) {
				t.Errorf("GET %s with Host %q: %d %q, want 403, a Forbidden Status naming the Host and %s", path, host, code, body, AcceptHostsFlag)
			}
		}
	}
}

// TestPortWithTokenAnswersEveryHost: with a token, the token is the check
// (docs/serve.md, "Web pages"): any Host reaches the gate, which answers
// 401 without the token and serves the request with it.
func TestPortWithTokenAnswersEveryHost(t *testing.T) {
	srv := hostPort(t, rightToken, "")
	if code, _ := withHost(t, srv, "/public", "evil.example:6443"); code != http.StatusOK {
		t.Errorf("GET /public with Host evil.example: %d, want 200", code)
	}
	if code, _ := withHost(t, srv, "/mounted/x", "evil.example:6443"); code != http.StatusUnauthorized {
		t.Errorf("GET /mounted/x with Host evil.example and no token: %d, want 401", code)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/mounted/x", nil)
	req.Host = "evil.example:6443"
	req.Header.Set("Authorization", "Bearer "+rightToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /mounted/x with Host evil.example and the token: %d, want 200", resp.StatusCode)
	}
}

// TestConnectIsNotCheckedForItsHost: a CONNECT's Host names where the
// relay goes, so the Host rule leaves it to its handler (which
// authenticates nodes itself).
func TestConnectIsNotCheckedForItsHost(t *testing.T) {
	port := NewMux(New(Config{}))
	var called bool
	port.HandleConnect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called = true }))
	srv := httptest.NewServer(port)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodConnect, srv.URL, nil)
	req.Host = "example.com:443"
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !called {
		t.Errorf("CONNECT example.com:443: %d, handler called %v; want the relay's handler to answer", resp.StatusCode, called)
	}
}

// TestParseAcceptHosts: regular expressions separated by commas, blanks
// ignored, and a bad one an error that quotes it.
func TestParseAcceptHosts(t *testing.T) {
	hosts, err := ParseAcceptHosts(" a\\.lan , ,^b$")
	if err != nil || len(hosts) != 2 {
		t.Fatalf("ParseAcceptHosts: %v, %v; want two expressions", hosts, err)
	}
	if _, err := ParseAcceptHosts("ok,(unclosed"); err == nil || !strings.Contains(err.Error(), `"(unclosed"`) {
		t.Errorf("ParseAcceptHosts of a bad expression: %v, want an error quoting it", err)
	}
	if hosts, err := ParseAcceptHosts(""); err != nil || len(hosts) != 0 {
		t.Errorf("ParseAcceptHosts(\"\"): %v, %v; want none", hosts, err)
	}
}
