package static

import (
	"errors"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// serveBundleFiles serves bundle as a prepared Bundle over real HTTP on
// 127.0.0.1, with Cache-Control "max-age=60"; a name that is not there
// answers 404 "none".
func serveBundleFiles(t *testing.T) *httptest.Server {
	t.Helper()
	b, err := NewBundle(bundle, Options{Brotli: true}, func(string) string { return "max-age=60" })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := b.Serve(w, r, r.URL.Path[1:]); errors.Is(err, fs.ErrNotExist) {
			http.Error(w, "none", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// do sends method path with headers ("Name: value") and returns the
// response with its body read.
func do(t *testing.T, srv *httptest.Server, method, path string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// The prepared answers choose variants by the rules of Options.Serve.
func TestBundleChoosesVariantsAsServe(t *testing.T) {
	prepared, plain := serveBundleFiles(t), serveBundle(t, Options{Brotli: true})
	for _, path := range []string{"/app.js", "/style.css", "/only.txt", "/lone.txt", "/app.js.br", "/nothing"} {
		for _, accept := range []string{"", "gzip", "br", "gzip;q=1, br;q=0.5", "br;q=0, gzip;q=0", "*", "identity"} {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				want, got := fetch(t, plain, method, path, accept), fetch(t, prepared, method, path, accept)
				if got != want {
					t.Errorf("%s %s, Accept-Encoding %q: %+v, want %+v as Options.Serve", method, path, accept, got, want)
				}
			}
		}
	}
}

func TestBundleIfNoneMatchIs304(t *testing.T) {
	srv := serveBundleFiles(t)
	gz, _ := do(t, srv, http.MethodGet, "/app.js", "Accept-Encoding: gzip")
	br, _ := do(t, srv, http.MethodGet, "/app.js", "Accept-Encoding: br")
	etag := gz.Header.Get("ETag")
	if etag == "" || etag == br.Header.Get("ETag") {
		t.Fatalf("ETags gzip %q, br %q: want one per variant", etag, br.Header.Get("ETag"))
	}
	for _, c := range []struct {
		inm    string
		status int
	}{
		{etag, http.StatusNotModified},
		{"W/" + etag, http.StatusNotModified}, // weak comparison
		{`"other", ` + etag, http.StatusNotModified},
		{"*", http.StatusNotModified},
		{br.Header.Get("ETag"), http.StatusOK}, // another variant's tag
		{`"other"`, http.StatusOK},
		{"garbage", http.StatusOK},
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			resp, body := do(t, srv, method, "/app.js", "Accept-Encoding: gzip", "If-None-Match: "+c.inm)
			if resp.StatusCode != c.status {
				t.Errorf("%s If-None-Match %s: %d, want %d", method, c.inm, resp.StatusCode, c.status)
				continue
			}
			if c.status == http.StatusOK {
				if method == http.MethodGet && body != "gzip js" {
					t.Errorf("%s If-None-Match %s: body %q", method, c.inm, body)
				}
				continue
			}
			// As http.ServeContent: the validators and Vary stay, the
			// Content-* headers go.
			h := resp.Header
			if body != "" || h.Get("ETag") != etag || h.Get("Vary") != "Accept-Encoding" || h.Get("Cache-Control") != "max-age=60" ||
				h.Get("Content-Type") != "" || h.Get("Content-Encoding") != "" || h.Get("Content-Length") != "" {
				t.Errorf("%s If-None-Match %s: 304 with headers %v body %q", method, c.inm, h, body)
			}
		}
	}
}

func TestBundleRanges(t *testing.T) {
	srv := serveBundleFiles(t)
	// One range of the plain file.
	resp, body := do(t, srv, http.MethodGet, "/app.js", "Range: bytes=2-4")
	if resp.StatusCode != http.StatusPartialContent || body != "ain" || resp.Header.Get("Content-Range") != "bytes 2-4/8" ||
		resp.Header.Get("Content-Length") != "3" || resp.Header.Get("ETag") == "" {
		t.Errorf("Range bytes=2-4: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	// A range of a variant is a range of its encoded bytes, as nginx sends.
	resp, body = do(t, srv, http.MethodGet, "/app.js", "Accept-Encoding: gzip", "Range: bytes=-2")
	if resp.StatusCode != http.StatusPartialContent || body != "js" || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("gzip Range bytes=-2: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	// Several ranges: multipart/byteranges.
	resp, body = do(t, srv, http.MethodGet, "/app.js", "Range: bytes=0-1,6-7")
	mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusPartialContent || mt != "multipart/byteranges" {
		t.Fatalf("Range bytes=0-1,6-7: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var parts []string
	mr := multipart.NewReader(strings.NewReader(body), params["boundary"])
	for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
		data, _ := io.ReadAll(p)
		parts = append(parts, p.Header.Get("Content-Range")+" "+string(data))
		if p.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("part %s: Content-Type %q", p.Header.Get("Content-Range"), p.Header.Get("Content-Type"))
		}
	}
	if strings.Join(parts, "|") != "bytes 0-1/8 pl|bytes 6-7/8 js" {
		t.Errorf("parts %q", parts)
	}
	// Not satisfiable: 416 with the size.
	resp, _ = do(t, srv, http.MethodGet, "/app.js", "Range: bytes=100-200")
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable || resp.Header.Get("Content-Range") != "bytes */8" {
		t.Errorf("Range bytes=100-200: %d %v", resp.StatusCode, resp.Header)
	}
	// If-Range with another ETag: the whole file.
	resp, body = do(t, srv, http.MethodGet, "/app.js", "Range: bytes=2-4", `If-Range: "old"`)
	if resp.StatusCode != http.StatusOK || body != "plain js" {
		t.Errorf("If-Range \"old\": %d %q, want the whole file", resp.StatusCode, body)
	}
	// If-Match with another ETag: 412.
	resp, _ = do(t, srv, http.MethodGet, "/app.js", `If-Match: "old"`)
	if resp.StatusCode != http.StatusPreconditionFailed {
		t.Errorf("If-Match \"old\": %d, want 412", resp.StatusCode)
	}
	// HEAD with a range: no body.
	resp, body = do(t, srv, http.MethodHead, "/app.js", "Range: bytes=2-4")
	if resp.StatusCode != http.StatusPartialContent || body != "" {
		t.Errorf("HEAD Range: %d %q", resp.StatusCode, body)
	}
}

func TestBundleHeadHasNoBodyAndTheGetsLength(t *testing.T) {
	srv := serveBundleFiles(t)
	for _, accept := range []string{"", "gzip", "br"} {
		get, getBody := do(t, srv, http.MethodGet, "/app.js", "Accept-Encoding: "+accept)
		head, headBody := do(t, srv, http.MethodHead, "/app.js", "Accept-Encoding: "+accept)
		if head.StatusCode != http.StatusOK || headBody != "" {
			t.Errorf("HEAD (%q): %d body %q", accept, head.StatusCode, headBody)
		}
		for _, name := range []string{"Content-Length", "Content-Encoding", "Content-Type", "ETag", "Vary", "Cache-Control", "Accept-Ranges"} {
			if head.Header.Get(name) != get.Header.Get(name) {
				t.Errorf("HEAD (%q): %s %q, GET's %q", accept, name, head.Header.Get(name), get.Header.Get(name))
			}
		}
		if get.Header.Get("Content-Length") != strconv.Itoa(len(getBody)) {
			t.Errorf("GET (%q): Content-Length %q for %d bytes", accept, get.Header.Get("Content-Length"), len(getBody))
		}
	}
}

// "No request can read outside the bundle": a prepared bundle, like a
// snapshot, holds regular files only, never what a symbolic link points to.
func TestBundleLeavesLinksOut(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bundle", "js"), 0o755)
	os.WriteFile(filepath.Join(dir, "bundle", "js", "app.js"), []byte("go()"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "bundle", "leak.txt"))
	os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "bundle", "app.js.gz"))
	os.Symlink(dir, filepath.Join(dir, "bundle", "up"))
	root, err := os.OpenRoot(filepath.Join(dir, "bundle"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBundle(root.FS(), Options{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if !b.Has("js/app.js") || b.Has("js") {
		t.Error("Has tells files from directories wrongly")
	}
	for _, name := range []string{"leak.txt", "app.js", "app.js.gz", "up/secret.txt", "up"} {
		if b.Has(name) {
			t.Errorf("%s is in the bundle", name)
		}
	}
}
