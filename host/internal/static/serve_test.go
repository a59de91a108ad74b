package static

import (
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
)

// bundle has every shape of file: plain with both variants, plain with .gz
// only, stored only as .gz (with a .br), and a .br with nothing beside it.
var bundle = fstest.MapFS{
	"app.js":       {Data: []byte("plain js")},
	"app.js.gz":    {Data: []byte("gzip js")},
	"app.js.br":    {Data: []byte("br js")},
	"style.css":    {Data: []byte("plain css")},
	"style.css.gz": {Data: []byte("gzip css")},
	"only.txt.gz":  {Data: []byte("gzip only")},
	"only.txt.br":  {Data: []byte("br only")},
	"lone.txt.br":  {Data: []byte("br alone")},
}

// serveBundle serves bundle over real HTTP on 127.0.0.1 with opts; a name
// that is not there answers 404 "none".
func serveBundle(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := opts.Serve(w, r, bundle, r.URL.Path[1:], http.StatusOK)
		if errors.Is(err, fs.ErrNotExist) {
			http.Error(w, "none", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

type answer struct {
	status   int
	encoding string
	body     string
	vary     string
	length   string
}

// fetch sends method path with exactly the Accept-Encoding accept (do's
// transport neither adds gzip to an empty one nor decodes the body).
func fetch(t *testing.T, srv *httptest.Server, method, path, accept string) answer {
	t.Helper()
	resp, body := do(t, srv, method, path, "Accept-Encoding: "+accept)
	return answer{resp.StatusCode, resp.Header.Get("Content-Encoding"), body,
		resp.Header.Get("Vary"), resp.Header.Get("Content-Length")}
}

func TestServeBrotliWhenAcceptedAndOptedIn(t *testing.T) {
	srv := serveBundle(t, Options{Brotli: true})
	for _, c := range []struct{ path, accept, encoding, body string }{
		{"/app.js", "br", "br", "br js"},
		{"/app.js", "gzip, deflate, br", "br", "br js"},             // both accepted: br preferred
		{"/app.js", "gzip;q=0.8, br;q=0.8", "br", "br js"},          // a tie goes to br
		{"/app.js", "*", "br", "br js"},                             // the wildcard accepts br too
		{"/app.js", "gzip;q=1, br;q=0.5", "gzip", "gzip js"},        // the client prefers gzip
		{"/app.js", "br;q=0, gzip", "gzip", "gzip js"},              // br refused
		{"/app.js", "", "", "plain js"},                             // neither
		{"/style.css", "br, gzip", "gzip", "gzip css"},              // no .br: gzip
		{"/style.css", "br", "", "plain css"},                       // no .br, no gzip: plain
		{"/only.txt", "br", "br", "br only"},                        // gz-only file: br is a variant of it
		{"/only.txt", "gzip", "gzip", "gzip only"},                  //
		{"/lone.txt", "br", "", "none\n"},                           // a .br alone is not a file
		{"/app.js.br", "identity", "", "br js"},                     // the variant's own name is a file
		{"/app.js", "BR;Q=0.5, x-gzip;q=0.4", "br", "br js"},        // names and q case-insensitive
		{"/only.txt", "br;q=0, gzip;q=0", "", "406 Not Acceptable"}, // prefix-checked below
	} {
		got := fetch(t, srv, http.MethodGet, c.path, c.accept)
		body := got.body
		if len(body) > len(c.body) {
			body = body[:len(c.body)]
		}
		if got.encoding != c.encoding || body != c.body {
			t.Errorf("GET %s, Accept-Encoding %q: Content-Encoding %q body %q, want %q %q", c.path, c.accept, got.encoding, got.body, c.encoding, c.body)
		}
		if got.status == http.StatusOK && got.vary != "Accept-Encoding" {
			t.Errorf("GET %s, Accept-Encoding %q: Vary %q, want Accept-Encoding", c.path, c.accept, got.vary)
		}
	}
	head := fetch(t, srv, http.MethodHead, "/app.js", "br")
	if head.status != http.StatusOK || head.encoding != "br" || head.body != "" || head.length != "5" {
		t.Errorf("HEAD /app.js (br): %+v, want 200 br, Content-Length 5, no body", head)
	}
}

func TestServeWithoutBrotliIsGzipOnlyAsBoards(t *testing.T) {
	// k32_resp_asset and the boards serve .gz only: a .br is never chosen.
	srv := serveBundle(t, Options{})
	for _, c := range []struct{ path, accept, encoding, body string }{
		{"/app.js", "br, gzip", "gzip", "gzip js"},
		{"/app.js", "br", "", "plain js"},
		{"/only.txt", "gzip", "gzip", "gzip only"},
	} {
		got := fetch(t, srv, http.MethodGet, c.path, c.accept)
		if got.status != http.StatusOK || got.encoding != c.encoding || got.body != c.body {
			t.Errorf("GET %s, Accept-Encoding %q: %d %q %q, want 200 %q %q", c.path, c.accept, got.status, got.encoding, got.body, c.encoding, c.body)
		}
	}
	if got := fetch(t, srv, http.MethodGet, "/only.txt", "br"); got.status != http.StatusNotAcceptable || got.encoding != "" {
		t.Errorf("gz-only file to a br-only client: %+v, want 406 as on a board", got)
	}
}
