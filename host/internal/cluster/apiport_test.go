package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"

	"github.com/kube32/kube32/abi"
)

// TestAPIPortMountsAreBehindTheToken is the rule of docs/design.md, "One
// token check on the API port", on a real cluster: the Kubernetes API, the
// channel endpoint and the web view's events, all mounted on the API port,
// refuse a request without the token (401) on both the plain and the HTTPS
// port and serve it with the token, while the health checks and the web
// view's page need none.
func TestAPIPortMountsAreBehindTheToken(t *testing.T) {
	c := startReady(t, Options{Token: testToken})
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(c.APICA())
	clients := map[string]*http.Client{
		c.APIURL():    {},
		c.APITLSURL(): {Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}},
	}
	status := func(client *http.Client, method, url, token string) int {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // a stream is refused or begun: its status is enough
		return resp.StatusCode
	}
	for base, client := range clients {
		for _, path := range []string{"/api/v1/namespaces", abi.ChannelsPath + "?watch=true", abi.UIPath + "events"} {
			if base == c.APIURL() && path == abi.UIPath+"events" {
				continue // over plain HTTP the web view redirects to HTTPS (webview tests)
			}
			if got := status(client, http.MethodGet, base+path, ""); got != http.StatusUnauthorized {
				t.Errorf("GET %s%s without the token: %d, want 401", base, path, got)
			}
			// five wrong tokens in all, within abi.TokenGuessBurst
			if got := status(client, http.MethodGet, base+path, "wrong"); got != http.StatusUnauthorized {
				t.Errorf("GET %s%s with a wrong token: %d, want 401", base, path, got)
			}
			if got := status(client, http.MethodGet, base+path, testToken); got != http.StatusOK {
				t.Errorf("GET %s%s with the token: %d, want 200", base, path, got)
			}
		}
		for _, path := range []string{"/readyz", "/version", abi.UIPath + "session"} {
			if base == c.APIURL() && path == abi.UIPath+"session" {
				continue
			}
			if got := status(client, http.MethodGet, base+path, ""); got != http.StatusOK {
				t.Errorf("GET %s%s without the token: %d, want 200", base, path, got)
			}
		}
	}
}
