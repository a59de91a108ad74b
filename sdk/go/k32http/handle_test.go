package k32http

import (
	"io"
	"net/http"
	"strings"
	"testing"

	k32 "github.com/kube32/kube32/sdk/go"
)

// recorder is a k32.ResponseWriter that keeps what reaches it.
type recorder struct {
	header k32.Header
	status []int
	body   strings.Builder
}

func (r *recorder) Header() k32.Header          { return r.header }
func (r *recorder) WriteHeader(code int)        { r.status = append(r.status, code) }
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }

func TestNewRequestLooksLikeNetHTTPs(t *testing.T) {
	kr := &k32.Request{
		Method: "POST", Path: "/a%2Fb/c", RawQuery: "q=1&q=2",
		Header: k32.Header{"Host": {"pod.local:7000"}, "Content-Length": {"5"}, "X-Test": {"v"}},
		Body:   strings.NewReader("hello"),
	}
	r, err := NewRequest(kr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method != "POST", r.URL.Path != "/a/b/c", r.URL.EscapedPath() != "/a%2Fb/c":
		t.Errorf("method/path: %s %q (escaped %q)", r.Method, r.URL.Path, r.URL.EscapedPath())
	case r.URL.Query()["q"][1] != "2", r.RequestURI != "/a%2Fb/c?q=1&q=2":
		t.Errorf("query: %v, RequestURI %q", r.URL.Query(), r.RequestURI)
	case r.Host != "pod.local:7000", r.Header.Get("Host") != "":
		t.Errorf("Host %q must move out of the header (%v)", r.Host, r.Header)
	case r.ContentLength != 5, string(body) != "hello", r.Header.Get("X-Test") != "v":
		t.Errorf("length %d body %q header %v", r.ContentLength, body, r.Header)
	}
	if _, err := NewRequest(&k32.Request{Method: "GET", Path: "no-slash"}); err == nil {
		t.Error("a path without a leading slash must be refused")
	}
}

func TestAdapterSniffsContentTypeAndDefersStatus(t *testing.T) {
	h := Adapter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		w.WriteHeader(http.StatusOK) // ignored, as in net/http
		io.WriteString(w, "<html><body>x</body></html>")
	}))
	rec := &recorder{header: k32.Header{}}
	h.ServeK32(rec, &k32.Request{Method: "GET", Path: "/", Body: strings.NewReader("")})
	if len(rec.status) != 1 || rec.status[0] != http.StatusTeapot {
		t.Errorf("statuses = %v, want one 418", rec.status)
	}
	if ct := rec.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q, want sniffed text/html", ct)
	}
}

func TestAdapterSendsStatusWithoutBody(t *testing.T) {
	h := Adapter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/x")
	}))
	rec := &recorder{header: k32.Header{}}
	h.ServeK32(rec, &k32.Request{Method: "GET", Path: "/", Body: strings.NewReader("")})
	if len(rec.status) != 1 || rec.status[0] != 200 || rec.header.Get("Content-Type") != "" {
		t.Errorf("statuses = %v, header %v; want one 200 and no sniffed type", rec.status, rec.header)
	}
}
