package ingress_test

import (
	"net/http"
	"strings"
	"testing"
)

// siteIngress serves the StaticBundle "site" under /static and at the root
// of host spa.e2e.test.
var siteIngress = ing("site",
	rule("", toBundle("Prefix", "/static", "site")),
	rule("spa.e2e.test", toBundle("Prefix", "/", "site")))

// bundleCases checks the spec's "StaticBundle resource backends" section:
// site is testdata/e2e/web/site, with app.js also as .gz and only.txt only as
// .gz.
var bundleCases = []e2eCase{
	{
		name:     "StaticBundle under a Prefix sub-path: the prefix is stripped",
		spec:     "When a route uses pathType: Prefix under a sub-path, the controller strips the matched prefix before looking up the file.",
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
		spec:     "When a file has a .gz variant and the client sends Accept-Encoding: gzip, the controller serves it with Content-Encoding: gzip.",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipVariant(t, e, "/static/app.js", "site/app.js")
		},
	},
	{
		name:     "StaticBundle file stored only as .gz: 406 without gzip",
		spec:     "A file stored only in .gz form returns 406 to clients that do not accept gzip.",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantGzipOnly(t, e, "/static/only.txt", "site/only.txt")
		},
	},
	{
		name:     "StaticBundle: / and extension-less paths fall back to /index.html",
		spec:     "Requests for / or extension-less paths that match no file fall back to /index.html in the bundle for single-page applications.",
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
		spec:     "/index.html uses Cache-Control: no-cache, and all other files use Cache-Control: public, max-age=3600.",
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
		spec:     "correct Content-Type by extension (issue 3, StaticBundle resource backends)",
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
		spec:     "HEAD (issue 3, StaticBundle resource backends)",
		manifest: siteIngress,
		check: func(t *testing.T, e *e2e) {
			wantHead(t, e, "/static/style.css", "site/style.css", "text/css")
		},
	},
	{
		name:     "StaticBundle Vary: Accept-Encoding",
		spec:     "Vary: Accept-Encoding (issue 3, StaticBundle resource backends)",
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
		spec:     "A resource backend serves files embedded into the firmware at build time from images/web/<bundle>/; no request can read outside the bundle (.., encoded slashes, symlinks) (issue 3)",
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
}
