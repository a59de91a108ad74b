package kubeconfig

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kube32/kube32/internal/testkit/testtls"
)

// liveAPI is a loopback server that answers /readyz, as a running serve's
// API server does; it stops when the test ends or when stopped.
func liveAPI(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// server is what the context named name points at, "" when it is gone.
func server(t *testing.T, path, name string) string {
	t.Helper()
	e, found, err := read(path, name)
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return ""
	}
	return e.Server
}

func take(t *testing.T, path string, e Entry) *Claim {
	t.Helper()
	c, err := Take(path, e)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func release(t *testing.T, c *Claim) {
	t.Helper()
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestClaimsOfTwoNamesCoexist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	a, b := liveAPI(t), liveAPI(t)
	first := take(t, path, Entry{Server: a.URL})
	second := take(t, path, Entry{Context: "other", Server: b.URL, Token: "t"})
	if first.Replaced != "" || second.Replaced != "" {
		t.Errorf("Replaced = %q, %q for contexts of distinct names", first.Replaced, second.Replaced)
	}
	if got := server(t, path, Name); got != a.URL {
		t.Errorf("context %s -> %q, want %q", Name, got, a.URL)
	}
	if e, _, _ := read(path, "other"); e.Server != b.URL || e.Token != "t" {
		t.Errorf("context other -> %+v", e)
	}
	release(t, first)
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Contexts[Name] != nil || cfg.Clusters[Name] != nil || cfg.AuthInfos[Name] != nil || cfg.CurrentContext != "" {
		t.Errorf("after release, the kube32 entries remain: %+v", cfg)
	}
	if got := server(t, path, "other"); got != b.URL {
		t.Errorf("after releasing kube32, context other -> %q", got)
	}
	release(t, second)
	if got := server(t, path, "other"); got != "" {
		t.Errorf("after its release, context other -> %q", got)
	}
}

// A serve that took the context over from a live one says so; the one it
// replaced leaves the context alone on exit, and the last one removes it.
func TestClaimOverALiveServe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	a, b := liveAPI(t), liveAPI(t)
	first := take(t, path, Entry{Server: a.URL})
	second := take(t, path, Entry{Server: b.URL})
	if second.Replaced != a.URL {
		t.Errorf("Replaced = %q, want %q", second.Replaced, a.URL)
	}
	if got := server(t, path, Name); got != b.URL {
		t.Errorf("context -> %q, want the second serve %q", got, b.URL)
	}
	a.Close()
	release(t, first)
	if got := server(t, path, Name); got != b.URL {
		t.Errorf("after the replaced serve left, context -> %q, want %q", got, b.URL)
	}
	release(t, second)
	if got := server(t, path, Name); got != "" {
		t.Errorf("after the last serve left, context -> %q, want none", got)
	}
}

// When the serve that took the context over leaves first, the context goes
// back to the one it replaced, which is still running.
func TestReleaseGivesTheContextBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	a, b := liveAPI(t), liveAPI(t)
	first := take(t, path, Entry{Server: a.URL, Token: "first"})
	second := take(t, path, Entry{Server: b.URL, Token: "second"})
	release(t, second)
	if e, _, _ := read(path, Name); e.Server != a.URL || e.Token != "first" {
		t.Errorf("after the second serve left, context -> %+v, want the first's", e)
	}
	release(t, first)
	if got := server(t, path, Name); got != "" {
		t.Errorf("after both left, context -> %q", got)
	}
}

// A context left behind by a serve that is gone is replaced without a word.
func TestClaimOverADeadServe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	dead := liveAPI(t)
	dead.Close()
	if err := Write(path, Entry{Server: dead.URL}); err != nil {
		t.Fatal(err)
	}
	c := take(t, path, Entry{Server: liveAPI(t).URL})
	if c.Replaced != "" {
		t.Errorf("Replaced = %q for a serve that is gone", c.Replaced)
	}
	release(t, c)
	if got := server(t, path, Name); got != "" {
		t.Errorf("context -> %q after release, want none", got)
	}
}

func TestAnswersAsksOnlyLoopback(t *testing.T) {
	if !answers(Entry{Server: liveAPI(t).URL}) {
		t.Error("a live loopback API does not answer")
	}
	for _, s := range []string{"https://prod.example:6443", "http://192.0.2.1:6443", "unix:///x", "::"} {
		if answers(Entry{Server: s}) {
			t.Errorf("answers(%q) = true", s)
		}
	}
}

// Over HTTPS a serve answers only with a certificate that the context's CA
// signed: a server the CA does not vouch for is not that serve.
func TestAnswersOverHTTPSTrustsTheContextsCA(t *testing.T) {
	s := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer s.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	if !answers(Entry{Server: s.URL, CA: ca}) {
		t.Error("a live HTTPS API with the context's CA does not answer")
	}
	if answers(Entry{Server: s.URL, CA: testtls.NewCA(t).PEM}) || answers(Entry{Server: s.URL}) {
		t.Error("an HTTPS API answers with a certificate the context's CA did not sign")
	}
}
