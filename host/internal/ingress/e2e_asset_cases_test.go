package ingress_test

import (
	"net/http"
	"testing"
)

// assetsIngress sends /assets/… to alpha-1, which serves them from its image
// bundle with k32_resp_asset.
var assetsIngress = ing("assets", rule("", toPod("Prefix", "/assets", "alpha-1")))

// assetCases checks the spec's "Serving files from a pod image with
// k32_resp_asset" section: alpha-1's image is wasm://embedded/whoami, whose
// bundle is testdata/e2e/web/whoami; whoami queues X-Whoami: <pod> before
// calling k32_resp_asset.
var assetCases = []e2eCase{
	{
		name:     "k32_resp_asset streams the file with Content-Type from the extension",
		spec:     "For an embedded image wasm://embedded/<name>, the bundle directory is images/web/<name>/ in the firmware. … sets Content-Type from the file extension",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			wantFiles(t, e, map[string]string{"/assets/style.css": "whoami/style.css", "/assets/page.html": "whoami/page.html"})
			wantContentTypes(t, e, map[string]string{"/assets/style.css": "text/css", "/assets/page.html": "text/html", "/assets/app.js": "text/javascript"})
		},
	},
	{
		name:     "k32_resp_asset sends the headers queued with k32_resp_header",
		spec:     "… and sends any headers queued earlier with k32_resp_header.",
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
		spec:     "prefers the .gz variant when the client accepts gzip",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipVariant(t, e, "/assets/app.js", "whoami/app.js")
		},
	},
	{
		name:     "k32_resp_asset: 406 when only the .gz exists and the client does not accept gzip",
		spec:     "(returning 406 if only the .gz file exists and the client does not accept gzip)",
		manifest: assetsIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipOnly(t, e, "/assets/only.txt", "whoami/only.txt")
		},
	},
	{
		name:     "k32_resp_asset handles HEAD",
		spec:     "handles HEAD requests",
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
		spec:     "The call returns 0 after sending the response, or K32_ERR_NOENT when the file does not exist. On K32_ERR_NOENT, the host sends nothing and keeps pending headers intact so the pod can write a fallback response.",
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
