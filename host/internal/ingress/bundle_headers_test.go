package ingress

import (
	"net/http"
	"testing"
)

// previousHeaders are the headers (all but Date) that the StaticBundle
// backend answered with before its answers were prepared at load, recorded
// from that implementation: a prepared answer must send the same, plus an
// ETag and Accept-Ranges on a 200. The 404s are since the JSON errors of
// docs/ingress.md ("Errors").
var previousHeaders = []struct {
	method, path, accept string
	status               int
	header               map[string]string
}{
	{"GET", "/", "", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/", "gzip", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/", "br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/", "gzip, br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/app.js", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "42", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/app.js", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "62", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/app.js", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "42", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/app.js", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "62", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/lib.js", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "76", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/lib.js", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "94", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/lib.js", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "64", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/lib.js", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "64", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/only.txt", "", 406, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "97", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/only.txt", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "53", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/only.txt", "br", 406, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "97", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/only.txt", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "53", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/packed.txt", "", 406, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "99", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/packed.txt", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "59", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/packed.txt", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "40", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/packed.txt", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "40", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/data.json", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"GET", "/data.json", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"GET", "/data.json", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"GET", "/data.json", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"GET", "/docs/guide.html", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/docs/guide.html", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/docs/guide.html", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/docs/guide.html", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/products/42", "", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/products/42", "gzip", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/products/42", "br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/products/42", "gzip, br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"GET", "/lone.txt", "", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"GET", "/lone.txt", "gzip", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"GET", "/lone.txt", "br", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"GET", "/lone.txt", "gzip, br", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"GET", "/nothere.js", "", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"GET", "/nothere.js", "gzip", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"GET", "/nothere.js", "br", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"GET", "/nothere.js", "gzip, br", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/", "", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/", "gzip", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/", "br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/", "gzip, br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/app.js", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "42", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/app.js", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "62", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/app.js", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "42", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/app.js", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "62", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/lib.js", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "76", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/lib.js", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "94", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/lib.js", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "64", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/lib.js", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "64", "Content-Type": "text/javascript; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/only.txt", "", 406, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/only.txt", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "53", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/only.txt", "br", 406, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/only.txt", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "53", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/packed.txt", "", 406, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/packed.txt", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "gzip", "Content-Length": "59", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/packed.txt", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "40", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/packed.txt", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Encoding": "br", "Content-Length": "40", "Content-Type": "text/plain; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/data.json", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"HEAD", "/data.json", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"HEAD", "/data.json", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"HEAD", "/data.json", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "36", "Content-Type": "application/json", "Vary": "Accept-Encoding"}},
	{"HEAD", "/docs/guide.html", "", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/docs/guide.html", "gzip", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/docs/guide.html", "br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/docs/guide.html", "gzip, br", 200, map[string]string{"Cache-Control": "public, max-age=3600", "Content-Length": "13", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/products/42", "", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/products/42", "gzip", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/products/42", "br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/products/42", "gzip, br", 200, map[string]string{"Cache-Control": "no-cache", "Content-Length": "66", "Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Encoding"}},
	{"HEAD", "/lone.txt", "", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/lone.txt", "gzip", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/lone.txt", "br", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/lone.txt", "gzip, br", 404, map[string]string{"Content-Length": "44", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/nothere.js", "", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/nothere.js", "gzip", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/nothere.js", "br", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
	{"HEAD", "/nothere.js", "gzip, br", 404, map[string]string{"Content-Length": "46", "Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}},
}

func TestStaticBundleHeadersAreThoseOfBefore(t *testing.T) {
	e := bundleEnv(t)
	for _, c := range previousHeaders {
		got := e.do(t, c.method, "", c.path, "Accept-Encoding: "+c.accept)
		if got.Status != c.status {
			t.Errorf("%s %s (Accept-Encoding %q): %d, want %d", c.method, c.path, c.accept, got.Status, c.status)
			continue
		}
		for name, values := range got.Header {
			want, ok := c.header[name]
			switch {
			case name == "Date":
			case c.status == http.StatusOK && (name == "Etag" || name == "Accept-Ranges"):
			case !ok:
				t.Errorf("%s %s (Accept-Encoding %q): new header %s: %q", c.method, c.path, c.accept, name, values)
			case len(values) != 1 || values[0] != want:
				t.Errorf("%s %s (Accept-Encoding %q): %s %q, want %q", c.method, c.path, c.accept, name, values, want)
			}
		}
		for name := range c.header {
			if got.Header.Get(name) == "" {
				t.Errorf("%s %s (Accept-Encoding %q): no %s", c.method, c.path, c.accept, name)
			}
		}
		if c.status == http.StatusOK && (got.Header.Get("ETag") == "" || got.Header.Get("Accept-Ranges") != "bytes") {
			t.Errorf("%s %s (Accept-Encoding %q): ETag %q, Accept-Ranges %q; want an ETag and bytes", c.method, c.path, c.accept, got.Header.Get("ETag"), got.Header.Get("Accept-Ranges"))
		}
	}
}
