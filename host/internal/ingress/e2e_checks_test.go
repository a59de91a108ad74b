package ingress_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// wantFiles checks that GET path answers 200 with the source file, for
// each path → file.
func wantFiles(t *testing.T, e *e2e, files map[string]string) {
	t.Helper()
	for path, file := range files {
		if got := e.get(t, "", path); got.Status != http.StatusOK || got.Body != e.file(t, file) {
			t.Errorf("GET %s: %s, want %s", path, got, file)
		}
	}
}

func wantGzipVariant(t *testing.T, e *e2e, path, file string) {
	t.Helper()
	want := e.file(t, file)
	got := e.get(t, "", path, "Accept-Encoding: gzip, deflate")
	plain, ok := gunzip(got.Body)
	if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "gzip" || !ok || plain != want {
		t.Errorf("GET %s accepting gzip: %d Content-Encoding %q, want the gzip variant of %s", path, got.Status, got.Header.Get("Content-Encoding"), file)
	}
	if got.Header.Get("Content-Length") != strconv.Itoa(len(got.Body)) {
		t.Errorf("GET %s accepting gzip: Content-Length %q for %d bytes", path, got.Header.Get("Content-Length"), len(got.Body))
	}
	got = e.get(t, "", path)
	if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "" || got.Body != want {
		t.Errorf("GET %s without gzip: %s Content-Encoding %q, want %s as is", path, got, got.Header.Get("Content-Encoding"), file)
	}
}

func wantGzipOnly(t *testing.T, e *e2e, path, file string) {
	t.Helper()
	for _, ae := range []string{"", "identity", "br", "gzip;q=0"} {
		if got := e.get(t, "", path, "Accept-Encoding: "+ae); got.Status != http.StatusNotAcceptable {
			t.Errorf("GET %s (Accept-Encoding %q): %s, want 406", path, ae, got)
		}
	}
	got := e.get(t, "", path, "Accept-Encoding: gzip")
	plain, ok := gunzip(got.Body)
	if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "gzip" || !ok || plain != e.file(t, file) {
		t.Errorf("GET %s accepting gzip: %d Content-Encoding %q, want the .gz of %s", path, got.Status, got.Header.Get("Content-Encoding"), file)
	}
}

func wantContentTypes(t *testing.T, e *e2e, types map[string]string) {
	t.Helper()
	for path, want := range types {
		got := e.get(t, "", path)
		if ct := got.Header.Get("Content-Type"); got.Status != http.StatusOK || !strings.HasPrefix(ct, want) {
			t.Errorf("GET %s: %d Content-Type %q, want %s", path, got.Status, ct, want)
		}
	}
}

// wantHead checks that HEAD path answers like GET without a body.
func wantHead(t *testing.T, e *e2e, path, file, contentType string) reply {
	t.Helper()
	got := e.do(t, http.MethodHead, "", path)
	if got.Status != http.StatusOK || got.Body != "" || got.Header.Get("Content-Length") != strconv.Itoa(len(e.file(t, file))) ||
		!strings.HasPrefix(got.Header.Get("Content-Type"), contentType) {
		t.Errorf("HEAD %s: %s %v, want 200, no body, Content-Length of %s and Content-Type %s", path, got, got.Header, file, contentType)
	}
	return got
}
