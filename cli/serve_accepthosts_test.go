package cli_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// TestServeAcceptHosts (docs/cli.md, docs/serve.md "Web pages"): serve
// without a token answers the API under its loopback names and the names
// of --accept-hosts, and refuses any other Host with 403 naming the flag.
func TestServeAcceptHosts(t *testing.T) {
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--accept-hosts", `devbox\.lan, .*\.ts\.net`)
	_, port, _ := strings.Cut(strings.TrimPrefix(c.APIURL(), "http://"), ":")
	pods := c.APIURL() + "/api/v1/namespaces/default/pods"
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "devbox.lan:" + port, "a.b.ts.net:" + port} {
		if r := testhttp.Get(t, pods, "Host: "+host); r.Status != http.StatusOK {
			t.Errorf("GET pods with Host %s: %s, want 200", host, r)
		}
	}
	for _, host := range []string{"evil.example:" + port, "devbox.lan.evil.example:" + port} {
		if r := testhttp.Get(t, pods, "Host: "+host); r.Status != http.StatusForbidden || !strings.Contains(r.Body, "--accept-hosts") {
			t.Errorf("GET pods with Host %s: %s, want 403 naming --accept-hosts", host, r)
		}
	}
}
