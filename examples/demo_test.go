package examples_test

import (
	"net/http"
	"strings"
	"testing"
)

// examples/demo: the page of the built-in demo, from a StaticBundle, sends a
// message to the echo pod on load and shows its reply.
func TestDemo(t *testing.T) {
	c := serveC(t, "demo")
	status, header, page := fetch(t, http.MethodGet, c.IngressURL()+"/", "")
	if status != http.StatusOK || !strings.Contains(page, "<title>kube32 demo</title>") || header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET /: %d %v\n%s", status, header, page)
	}
	if strings.Contains(page, "hello from echo") {
		t.Fatal("the static page already holds the echo pod's greeting; the browser check below would prove nothing")
	}
	t.Run("in Chromium", func(t *testing.T) {
		const rendered = `data-greeting="hello from echo"`
		dom := dumpDOM(t, c.IngressURL()+"/", func(dom string) bool { return strings.Contains(dom, rendered) })
		if !strings.Contains(dom, rendered) {
			t.Errorf("the page did not render the echo pod's reply (%s):\n%s", rendered, dom)
		}
	})
}
