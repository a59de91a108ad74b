package ingress_test

import (
	"net/http"
	"testing"
)

// assetsIngress sends /assets/… to alpha-1, which serves them from its image
// bundle with k32_resp_asset.
var assetsIngress = ing("assets", rule("", toPod("Prefix", "/assets", "alpha-1")))

// assetCases checks docs/bundles.md, "A pod's files: k32_resp_asset":
// alpha-1's image is wasm://embedded/whoami, whose bundle is
// testdata/e2e/web/whoami; whoami queues X-Whoami: <pod> before calling
// k32_resp_asset.
var assetCases = []e2eCase{
	{
		name:     "k32_resp_asset streams the file with Content-Type from the extension",
		rule:     "k32_resp_asset answers with a file of the pod's bundle (images/web/<name>/ for wasm://embedded/<name>), its Content-Type from the extension",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			wantFiles(t, e, map[string]string{"/assets/style.css": "whoami/style.css", "/assets/page.html": "whoami/page.html"})
			wantContentTypes(t, e, map[string]string{"/assets/style.css": "text/css", "/assets/page.html": "text/html", "/assets/app.js": "text/javascript"})
		},
	},
	{
		name:     "k32_resp_asset sends the headers queued with k32_resp_header",
		rule:     "k32_resp_asset sends the headers the pod queued with k32_resp_header",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			for _, p := range []string{"/assets/style.css", "/assets/app.js"} {
				if got := e.get(t, "", p, "Accept-Encoding: gzip"); got.Status != http.StatusOK || got.Header.Get("X-Whoami") != "alpha-1" {
					t.Errorf("GET %s: %d X-Whoami %q, want 200 with X-Whoami: alpha-1", p, got.Status, got.Header.Get("X-Whoami"))
				}
			}
		},
	},
	{
		name:     "k32_resp_asset prefers the .gz variant",
		rule:     "k32_resp_asset sends the .gz with Content-Encoding: gzip when the request accepts gzip",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipVariant(t, e, "/assets/app.js", "whoami/app.js")
		},
	},
	{
		name:     "k32_resp_asset: 406 when only the .gz exists and the client does not accept gzip",
		rule:     "k32_resp_asset: a file stored only as .gz answers 406 to a request that does not accept gzip",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipOnly(t, e, "/assets/only.txt", "whoami/only.txt")
		},
	},
	{
		name:     "k32_resp_asset handles HEAD",
		rule:     "k32_resp_asset answers HEAD with the headers only",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			got := wantHead(t, e, "/assets/style.css", "whoami/style.css", "text/css")
			if got.Header.Get("X-Whoami") != "alpha-1" {
				t.Errorf("HEAD /assets/style.css: X-Whoami %q, want alpha-1", got.Header.Get("X-Whoami"))
			}
		},
	},
	{
		name:     "k32_resp_asset K32_ERR_NOENT sends nothing and keeps the queued headers for the fallback",
		rule:     "k32_resp_asset returns 0 once it has answered; for a file that does not exist it returns K32_ERR_NOENT, sends nothing and keeps the queued headers, so the pod can still write a fallback answer",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			for _, p := range []string{"/assets/missing.txt", "/assets/docs/nothing.html", "/assets/app"} {
				got := e.get(t, "", p)
				want := "fallback from alpha-1 for " + p + "\n"
				if got.Status != http.StatusNotFound || got.Body != want || got.Header.Get("X-Whoami") != "alpha-1" {
					t.Errorf("GET %s: %s X-Whoami %q, want 404 %q with X-Whoami: alpha-1", p, got, got.Header.Get("X-Whoami"), want)
				}
				if got.Header.Get("Content-Encoding") != "" || got.Header.Get("Cache-Control") != "" {
					t.Errorf("GET %s: the failed asset call left headers behind: %v", p, got.Header)
				}
			}
		},
	},
}
