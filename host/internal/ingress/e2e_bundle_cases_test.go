package ingress_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// siteIngress serves the StaticBundle "site" under /static and at the root
// of host spa.e2e.test.
var siteIngress = ing("site",
	rule("", toBundle("Prefix", "/static", "site")),
	rule("spa.e2e.test", toBundle("Prefix", "/", "site")))

// bundleCases checks docs/bundles.md, "Serving": site is
// testdata/e2e/web/site, with app.js also as .gz and only.txt only as .gz.
var bundleCases = []e2eCase{
	{
		name:     "StaticBundle under a Prefix sub-path: the prefix is stripped",
		rule:     "A Prefix route under a sub-path strips the matched prefix before the lookup",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantFiles(t, e, map[string]string{
				"/static/app.js":          "site/app.js",
				"/static/style.css":       "site/style.css",
				"/static/docs/guide.html": "site/docs/guide.html",
			})
		},
	},
	{
		name:     "StaticBundle .gz variant for clients that accept gzip",
		rule:     "When a file has a .gz and the request accepts gzip, the .gz is sent with Content-Encoding: gzip",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipVariant(t, e, "/static/app.js", "site/app.js")
		},
	},
	{
		name:     "StaticBundle file stored only as .gz: 406 without gzip",
		rule:     "A file stored only as .gz answers 406 Not Acceptable to a request that does not accept gzip",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipOnly(t, e, "/static/only.txt", "site/only.txt")
		},
	},
	{
		name:     "StaticBundle: / and extension-less paths fall back to /index.html",
		rule:     "/ and paths without an extension that match no file are answered with the bundle's /index.html",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			index := e.file(t, "site/index.html")
			for _, c := range []struct{ host, path string }{
				{"spa.e2e.test", "/"},
				{"spa.e2e.test", "/some/client/route"},
				{"spa.e2e.test", "/docs"},
				{"", "/static"},
				{"", "/static/"},
				{"", "/static/items/42"},
			} {
				if got := e.get(t, c.host, c.path); got.Status != http.StatusOK || got.Body != index {
					t.Errorf("GET %s%s: %s, want index.html", c.host, c.path, got)
				}
			}
			for _, p := range []string{"/static/missing.js", "/static/docs/missing.html"} {
				if got := e.get(t, "", p); got.Status != http.StatusNotFound {
					t.Errorf("GET %s: %s, want 404 (a path with an extension does not fall back)", p, got)
				}
			}
		},
	},
	{
		name:     "StaticBundle Cache-Control",
		rule:     "/index.html (also as the fallback) is sent with Cache-Control: no-cache, every other file with Cache-Control: public, max-age=3600",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			for path, want := range map[string]string{
				"/static/":                "no-cache",
				"/static/index.html":      "no-cache",
				"/static/client/route":    "no-cache",
				"/static/app.js":          "public, max-age=3600",
				"/static/style.css":       "public, max-age=3600",
				"/static/docs/guide.html": "public, max-age=3600",
			} {
				if got := e.get(t, "", path); got.Status != http.StatusOK || got.Header.Get("Cache-Control") != want {
					t.Errorf("GET %s: %d Cache-Control %q, want %q", path, got.Status, got.Header.Get("Cache-Control"), want)
				}
			}
		},
	},
	{
		name:     "StaticBundle Content-Type by extension",
		rule:     "Content-Type comes from the extension",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantContentTypes(t, e, map[string]string{
				"/static/index.html":      "text/html",
				"/static/docs/guide.html": "text/html",
				"/static/app.js":          "text/javascript",
				"/static/style.css":       "text/css",
				"/static/logo.svg":        "image/svg+xml",
				"/static/data.json":       "application/json",
			})
		},
	},
	{
		name:     "StaticBundle HEAD",
		rule:     "HEAD answers the headers only, with the Content-Length the GET would have",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantHead(t, e, "/static/style.css", "site/style.css", "text/css")
		},
	},
	{
		name:     "StaticBundle Vary: Accept-Encoding",
		rule:     "The answers carry Vary: Accept-Encoding",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			for _, ae := range []string{"", "gzip"} {
				for _, p := range []string{"/static/app.js", "/static/style.css"} {
					if got := e.get(t, "", p, "Accept-Encoding: "+ae); got.Header.Get("Vary") != "Accept-Encoding" {
						t.Errorf("GET %s (Accept-Encoding %q): Vary %q, want Accept-Encoding", p, ae, got.Header.Get("Vary"))
					}
				}
			}
		},
	},
	{
		name:     "StaticBundle cannot be escaped",
		rule:     "No request reads outside the bundle: .. segments, encoded slashes or backslashes and symbolic links are refused",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			index := e.file(t, "site/index.html")
			for _, target := range []string{
				"/static/../secret.txt",
				"/static/../../secret.txt",
				"/static/%2e%2e/secret.txt",
				"/static/..%2fsecret.txt",
				"/static/%2e%2e%2f%2e%2e%2fsecret.txt",
				"/static/docs/..%2f..%2fsecret.txt",
				"/static/..%5csecret.txt",
				"/static/..\\secret.txt",
				"/static//secret.txt",
				"/static/inside-link.txt",
				"/static/outside-link.txt",
				"/static/outside-dir/secret.txt",
			} {
				got := e.raw(t, target)
				plain, _ := gunzip(got.Body)
				if strings.Contains(got.Body, "SECRET") || strings.Contains(plain, "SECRET") {
					t.Errorf("GET %s escaped the bundle: %s", target, got)
					continue
				}
				if got.Status == http.StatusOK && got.Body != index {
					t.Errorf("GET %s: %s, want a refusal or the index.html fallback", target, got)
				}
			}
		},
	},
	{
		// Issue 19, item 8.
		name:     "StaticBundle: an encoded slash inside the bundle is refused too",
		rule:     "No request reads outside the bundle: encoded slashes or backslashes are refused",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			if got := e.get(t, "", "/static/docs/guide.html"); got.Status != http.StatusOK {
				t.Fatalf("the plain path: %s", got)
			}
			for _, target := range []string{"/static/docs%2fguide.html", "/static/docs%2Fguide.html", "/static/docs%5cguide.html"} {
				wantJSONError(t, e.raw(t, target), http.StatusNotFound, "GET "+target)
			}
		},
	},
	{
		// Issue 19, item 8.
		name:     "Every error the Ingress answers itself is JSON",
		rule:     "Unmatched requests return 404 JSON; the controller's own answers read the same way (docs/ingress.md)",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantJSONError(t, e.do(t, http.MethodPost, "", "/static/app.js"), http.StatusMethodNotAllowed, "POST to a bundle")
			wantJSONError(t, e.get(t, "", "/static/missing.css"), http.StatusNotFound, "a missing file")
		},
	},
	{
		// Issue 19, item 8.
		name:     "A request body past the limit gets the JSON error too",
		rule:     "The controller's own answers read the same way (docs/ingress.md), 413 and 408 included",
		manifest: ing("big-body", rule("", toService("Prefix", "/t", "alpha", "{number: 80}"))),
		check: func(t *testing.T, e *e2e) {
			big := testhttp.Do(t, http.MethodPost, "http://"+e.addr+"/t", strings.Repeat("x", httplimit.MaxBody+1))
			wantJSONError(t, big, http.StatusRequestEntityTooLarge, "a body past the limit")
		},
	},
}

// wantJSONError checks that got is the JSON error the controller answers
// itself, with status.
func wantJSONError(t *testing.T, got reply, status int, what string) {
	t.Helper()
	var body map[string]string
	if got.Status != status || got.Header.Get("Content-Type") != "application/json" ||
		json.Unmarshal([]byte(got.Body), &body) != nil || body["error"] == "" {
		t.Errorf("%s: %s (Content-Type %q), want %d with a JSON body naming the error", what, got, got.Header.Get("Content-Type"), status)
	}
}
