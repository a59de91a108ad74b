package ingress

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// siteDir is the StaticBundle "site" of the test firmware image.
const siteDir = "testdata/images/firmware/images/web/site"

func file(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(siteDir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// bundleEnv routes "/" and the sub-path /sub/app to the bundle "site", and
// /missing to a bundle the firmware lacks.
func bundleEnv(t *testing.T) *env {
	return start(t, ingress("default", "site", nil, rule("",
		toBundle(prefix, "/", "site"),
		toBundle(prefix, "/sub/app/", "site"),
		toBundle(implSpec, "/impl", "site"),
		toBundle(exact, "/exact/app.js", "site"),
		toBundle(prefix, "/missing", "nope"))))
}

func TestStaticBundleStripsTheMatchedPrefix(t *testing.T) {
	// "When a route uses pathType: Prefix under a sub-path, the controller
	// strips the matched prefix before looking up the file."
	e := bundleEnv(t)
	for path, want := range map[string]string{
		"/app.js":                  "app.js",
		"/sub/app/app.js":          "app.js",
		"/sub/app/docs/guide.html": "docs/guide.html",
		"/sub/app/sub/nested.txt":  "sub/nested.txt",
		"/sub/app/":                "index.html",
		"/sub/app":                 "index.html",
		"/impl/style.css":          "style.css",
	} {
		got := e.get(t, "", path)
		if got.Status != http.StatusOK || got.Body != file(t, want) {
			t.Errorf("GET %s: %d %q, want %s", path, got.Status, got.Body, want)
		}
	}
	// An Exact route strips nothing: the whole path names the file, and
	// exact/app.js is not in the bundle.
	if got := e.get(t, "", "/exact/app.js"); got.Status != http.StatusNotFound {
		t.Errorf("GET /exact/app.js: %d %q, want 404", got.Status, got.Body)
	}
}

func TestStaticBundleServesGzipVariant(t *testing.T) {
	// "When a file has a .gz variant and the client sends Accept-Encoding:
	// gzip, the controller serves it with Content-Encoding: gzip."
	e := bundleEnv(t)
	for _, accept := range []string{"gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.5", "*"} {
		got := e.get(t, "", "/app.js", "Accept-Encoding: "+accept)
		if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("Accept-Encoding %q: %d Content-Encoding %q, want 200 gzip", accept, got.Status, got.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(strings.NewReader(got.Body))
		if err != nil {
			t.Fatalf("Accept-Encoding %q: body is not gzip: %v", accept, err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || string(plain) != file(t, "app.js") {
			t.Fatalf("Accept-Encoding %q: gunzipped body %q (%v), want app.js", accept, plain, err)
		}
		if ct := mediaType(got.Header.Get("Content-Type")); ct != "text/javascript" && ct != "application/javascript" {
			t.Errorf("Accept-Encoding %q: Content-Type %q, want the type of .js, not of .gz", accept, ct)
		}
	}
	// Without gzip (or with gzip refused) the plain file is sent.
	for _, accept := range []string{"", "identity", "br", "gzip;q=0"} {
		got := e.get(t, "", "/app.js", "Accept-Encoding: "+accept)
		if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "" || got.Body != file(t, "app.js") {
			t.Errorf("Accept-Encoding %q: %d Content-Encoding %q body %q, want the plain app.js", accept, got.Status, got.Header.Get("Content-Encoding"), got.Body)
		}
	}
}

func TestStaticBundleServesBrotliVariantUnderServe(t *testing.T) {
	// docs/bundles.md, "Serving": under `kube32 serve` a bundle's .br is an
	// extra variant beside its .gz, preferred over gzip when the client
	// accepts both; boards serve .gz only.
	e := bundleEnv(t)
	for _, c := range []struct{ path, accept, encoding, variant string }{
		{"/lib.js", "br", "br", "lib.js.br"},
		{"/lib.js", "gzip, deflate, br", "br", "lib.js.br"},
		{"/lib.js", "gzip;q=0.5, br;q=0.5", "br", "lib.js.br"},
		{"/sub/app/lib.js", "br", "br", "lib.js.br"}, // after prefix stripping
		{"/lib.js", "gzip, br;q=0.2", "gzip", "lib.js.gz"},
		{"/lib.js", "gzip, br;q=0", "gzip", "lib.js.gz"},
		{"/lib.js", "identity", "", "lib.js"},
		{"/packed.txt", "br", "br", "packed.txt.br"}, // stored as .gz: its .br is a variant of it
		{"/packed.txt", "gzip", "gzip", "packed.txt.gz"},
		{"/app.js", "br, gzip", "gzip", "app.js.gz"}, // no .br: gzip as before
	} {
		got := e.get(t, "", c.path, "Accept-Encoding: "+c.accept)
		if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != c.encoding || got.Body != file(t, c.variant) {
			t.Errorf("GET %s, Accept-Encoding %q: %d Content-Encoding %q, want 200 %q with %s", c.path, c.accept, got.Status, got.Header.Get("Content-Encoding"), c.encoding, c.variant)
			continue
		}
		if ct := mediaType(got.Header.Get("Content-Type")); ct != "text/javascript" && ct != "text/plain" {
			t.Errorf("GET %s (%s): Content-Type %q, want the type of the file, not of its variant", c.path, c.accept, ct)
		}
		if got.Header.Get("Vary") != "Accept-Encoding" || got.Header.Get("Cache-Control") != "public, max-age=3600" {
			t.Errorf("GET %s (%s): Vary %q Cache-Control %q", c.path, c.accept, got.Header.Get("Vary"), got.Header.Get("Cache-Control"))
		}
	}
	if plain := unbrotli(e.get(t, "", "/lib.js", "Accept-Encoding: br").Body); plain != file(t, "lib.js") {
		t.Errorf("the br body decodes to %q, want lib.js", plain)
	}
	head := e.do(t, http.MethodHead, "", "/lib.js", "Accept-Encoding: br")
	if head.Status != http.StatusOK || head.Body != "" || head.Header.Get("Content-Encoding") != "br" ||
		head.Header.Get("Content-Length") != strconv.Itoa(len(file(t, "lib.js.br"))) {
		t.Errorf("HEAD /lib.js (br): %d %v, want 200, br, the .br's length, no body", head.Status, head.Header)
	}
	// A file stored only as .gz still answers 406 to a client that accepts
	// neither gzip nor br.
	if got := e.get(t, "", "/packed.txt", "Accept-Encoding: identity"); got.Status != http.StatusNotAcceptable {
		t.Errorf("GET /packed.txt without gzip or br: %d, want 406", got.Status)
	}
	// A .br alone is not a file: /lone.txt is a 404, /lone (no extension)
	// falls back to index.html.
	if got := e.get(t, "", "/lone.txt", "Accept-Encoding: br"); got.Status != http.StatusNotFound {
		t.Errorf("GET /lone.txt (br): %d %q, want 404: a .br is only ever an extra variant", got.Status, got.Body)
	}
	if got := e.get(t, "", "/lone", "Accept-Encoding: br"); got.Status != http.StatusOK || got.Body != file(t, "index.html") {
		t.Errorf("GET /lone (br): %d %q, want the index.html fallback", got.Status, got.Body)
	}
}

func TestStaticBundleGzipOnlyFileIs406WithoutGzip(t *testing.T) {
	// "A file stored only in .gz form returns 406 to clients that do not accept gzip."
	e := bundleEnv(t)
	if got := e.get(t, "", "/only.txt", "Accept-Encoding: identity"); got.Status != http.StatusNotAcceptable {
		t.Errorf("without gzip: %d %q, want 406", got.Status, got.Body)
	}
	if got := e.get(t, "", "/only.txt", "Accept-Encoding: gzip;q=0"); got.Status != http.StatusNotAcceptable {
		t.Errorf("with gzip;q=0: %d %q, want 406", got.Status, got.Body)
	}
	got := e.get(t, "", "/only.txt", "Accept-Encoding: gzip")
	if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("with gzip: %d Content-Encoding %q, want 200 gzip", got.Status, got.Header.Get("Content-Encoding"))
	}
	if ct := mediaType(got.Header.Get("Content-Type")); ct != "text/plain" {
		t.Errorf("with gzip: Content-Type %q, want text/plain", ct)
	}
}

func TestStaticBundleFallsBackToIndexHTML(t *testing.T) {
	// "Requests for / or extension-less paths that match no file fall back
	// to /index.html in the bundle for single-page applications."
	e := bundleEnv(t)
	for _, path := range []string{"/", "/products", "/products/42", "/docs", "/sub/app/checkout"} {
		got := e.get(t, "", path)
		if got.Status != http.StatusOK || got.Body != file(t, "index.html") {
			t.Errorf("GET %s: %d %q, want index.html", path, got.Status, got.Body)
		}
	}
	// A path with an extension that matches no file is a plain 404.
	for _, path := range []string{"/missing.js", "/docs/missing.html"} {
		if got := e.get(t, "", path); got.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d %q, want 404", path, got.Status, got.Body)
		}
	}
}

func TestStaticBundleCacheControl(t *testing.T) {
	// "/index.html uses Cache-Control: no-cache, and all other files use
	// Cache-Control: public, max-age=3600."
	e := bundleEnv(t)
	for path, want := range map[string]string{
		"/index.html":      "no-cache",
		"/":                "no-cache", // the fallback serves /index.html
		"/spa/route":       "no-cache",
		"/app.js":          "public, max-age=3600",
		"/style.css":       "public, max-age=3600",
		"/docs/guide.html": "public, max-age=3600",
		"/sub/app/app.js":  "public, max-age=3600",
	} {
		got := e.get(t, "", path, "Accept-Encoding: gzip")
		if got.Status != http.StatusOK || got.Header.Get("Cache-Control") != want {
			t.Errorf("GET %s: %d Cache-Control %q, want %q", path, got.Status, got.Header.Get("Cache-Control"), want)
		}
	}
}

func TestStaticBundleContentTypeByExtension(t *testing.T) {
	e := bundleEnv(t)
	for path, want := range map[string][]string{
		"/index.html": {"text/html"},
		"/style.css":  {"text/css"},
		"/app.js":     {"text/javascript", "application/javascript"},
		"/data.json":  {"application/json"},
		"/logo.svg":   {"image/svg+xml"},
	} {
		got := e.get(t, "", path)
		ct := mediaType(got.Header.Get("Content-Type"))
		ok := false
		for _, w := range want {
			ok = ok || ct == w
		}
		if got.Status != http.StatusOK || !ok {
			t.Errorf("GET %s: %d Content-Type %q, want %v", path, got.Status, got.Header.Get("Content-Type"), want)
		}
	}
}

func TestStaticBundleHeadAndVary(t *testing.T) {
	e := bundleEnv(t)
	for _, accept := range []string{"gzip", "identity"} {
		head := e.do(t, http.MethodHead, "", "/app.js", "Accept-Encoding: "+accept)
		get := e.get(t, "", "/app.js", "Accept-Encoding: "+accept)
		if head.Status != http.StatusOK || head.Body != "" {
			t.Errorf("HEAD (%s): %d body %q, want 200 without a body", accept, head.Status, head.Body)
		}
		if cl := head.Header.Get("Content-Length"); cl != strconv.Itoa(len(get.Body)) {
			t.Errorf("HEAD (%s): Content-Length %q, want %d (the GET body)", accept, cl, len(get.Body))
		}
		for _, r := range []reply{head, get} {
			if r.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("(%s) Vary %q, want Accept-Encoding: the answer depends on it", accept, r.Header.Get("Vary"))
			}
		}
		if head.Header.Get("Content-Encoding") != get.Header.Get("Content-Encoding") {
			t.Errorf("HEAD and GET disagree on Content-Encoding")
		}
	}
	if got := e.do(t, http.MethodPost, "", "/app.js"); got.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", got.Status)
	}
}

func TestStaticBundleMissingFromFirmwareIs503(t *testing.T) {
	e := bundleEnv(t)
	if got := e.get(t, "", "/missing/x"); got.Status != http.StatusServiceUnavailable || !strings.Contains(got.Body, "nope") {
		t.Errorf("GET /missing/x: %d %q, want 503 naming the bundle", got.Status, got.Body)
	}
}

func TestStaticBundleCannotBeEscaped(t *testing.T) {
	// Files are served "from images/web/<bundle>/": nothing outside it, by
	// dot segments, encoded dots, encoded slashes or backslashes.
	e := bundleEnv(t)
	for _, target := range []string{
		"/../secret.txt",
		"/../../secret.txt",
		"/sub/app/../../secret.txt",
		"/sub/app/../../../secret.txt",
		"/%2e%2e/secret.txt",
		"/%2E%2E/%2e%2e/secret.txt",
		"/..%2fsecret.txt",
		"/..%2f..%2fsecret.txt",
		"/%2e%2e%2fsecret.txt",
		"/%2e%2e%2f%2e%2e%2fsecret.txt",
		"/sub/app/..%2f..%2fsecret.txt",
		"/sub/app%2f..%2f..%2f..%2fsecret.txt",
		"/..\\secret.txt",
		"/..%5csecret.txt",
		"/%2e%2e%5c%2e%2e%5csecret.txt",
		"/.%2e/secret.txt",
		"//secret.txt",
	} {
		got := e.raw(t, target)
		if strings.Contains(got.Body, "SECRET") || bytes.Contains(gunzip(got.Body), []byte("SECRET")) {
			t.Errorf("GET %s escaped the bundle: %d %q", target, got.Status, got.Body)
			continue
		}
		if got.Status == http.StatusOK && got.Body != file(t, "index.html") {
			t.Errorf("GET %s: 200 %q, want a refusal or the index.html fallback", target, got.Body)
		}
	}
}

func mediaType(contentType string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt
}

func unbrotli(s string) string {
	b, err := io.ReadAll(brotli.NewReader(strings.NewReader(s)))
	if err != nil {
		return ""
	}
	return string(b)
}

func gunzip(s string) []byte {
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		return nil
	}
	b, _ := io.ReadAll(zr)
	return b
}
