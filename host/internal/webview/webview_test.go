package webview

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
)

const rightToken = "the-cluster-token"

// port is an API port with the web view alone mounted, its gate checking
// token on clock (nil: the real one), and the HTTPS port at tlsAddr.
func port(token, tlsAddr string, clock func() time.Time) http.Handler {
	p := apiauth.NewMux(apiauth.New(apiauth.Config{Token: token, Clock: clock}))
	Mount(p, Config{TLSAddr: tlsAddr})
	return p
}

// loginServer serves the web view over HTTPS with rightToken on a stopped
// clock that advance moves.
type loginServer struct {
	*httptest.Server
	mu  sync.Mutex
	now time.Time
}

func newLoginServer(t *testing.T) *loginServer {
	g := &loginServer{now: time.Unix(1e9, 0)}
	g.Server = httptest.NewTLSServer(port(rightToken, "", func() time.Time { g.mu.Lock(); defer g.mu.Unlock(); return g.now }))
	t.Cleanup(g.Close)
	return g
}

func (g *loginServer) advance(d time.Duration) { g.mu.Lock(); g.now = g.now.Add(d); g.mu.Unlock() }

// TestWrongLoginsGet429AfterTheBurst: /ui/login counts in the budget of wrong tokens,
// and the right token past the budget sets no cookie; once the budget has
// refilled it sets the session cookie, Secure, HttpOnly and SameSite=Strict,
// and ends the old one.
func TestWrongLoginsGet429AfterTheBurst(t *testing.T) {
	g := newLoginServer(t)
	login := func(token string) *http.Response {
		t.Helper()
		resp, err := g.Client().PostForm(g.URL+abi.UIPath+"login", url.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for i := range abi.TokenGuessBurst {
		if resp := login("guess"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong login %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	if resp := login(rightToken); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || len(resp.Cookies()) != 0 {
		t.Fatalf("the right login past the burst: %d Retry-After %q cookies %v, want 429 and no cookie",
			resp.StatusCode, resp.Header.Get("Retry-After"), resp.Cookies())
	}
	g.advance(time.Second / abi.TokenGuessRate)
	resp := login(rightToken)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("the right login once the budget refilled: %d, want 204", resp.StatusCode)
	}
	got := map[string]*http.Cookie{}
	for _, c := range resp.Cookies() {
		got[c.Name] = c
	}
	if c := got[abi.SessionCookie]; c == nil || c.Value != rightToken || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Domain != "" {
		t.Errorf("session cookie %+v", c)
	}
	if c := got[abi.TokenCookie]; c == nil || c.MaxAge >= 0 {
		t.Errorf("the old cookie is not ended: %+v", c)
	}
}

// TestUIOverPlainHTTPRedirectsToHTTPS: with a token, the web view over
// plain HTTP sends the browser to the HTTPS port, where its cookie can be
// Secure; without one it is served on either.
func TestUIOverPlainHTTPRedirectsToHTTPS(t *testing.T) {
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, token := range []string{rightToken, ""} {
		srv := httptest.NewServer(port(token, "127.0.0.1:6444", nil))
		for _, path := range []string{"/ui", abi.UIPath, abi.UIPath + "app.js?v=1", abi.UIPath + "events"} {
			resp, err := noRedirect.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			switch {
			case token != "" && (resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != "https://127.0.0.1:6444"+path):
				t.Errorf("with a token, GET %s: %d to %q, want 307 to the HTTPS port", path, resp.StatusCode, resp.Header.Get("Location"))
			case token == "" && resp.StatusCode/100 == 3 && path != "/ui" && path != abi.UIPath+"events":
				t.Errorf("without a token, GET %s: %d, want it served", path, resp.StatusCode)
			}
		}
		srv.Close()
	}
}

// TestEventsNeedTheTokenThePageDoesNot: the page's files and its session
// carry no cluster data and are served without the token, which the page
// asks for; the activity stream is refused without it (401 as a Status)
// and streamed with the session cookie over HTTPS.
func TestEventsNeedTheTokenThePageDoesNot(t *testing.T) {
	srv := httptest.NewTLSServer(port(rightToken, "", nil))
	defer srv.Close()
	get := func(path, cookie string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if cookie != "" {
			req.Header.Set("Cookie", abi.SessionCookie+"="+cookie)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Content-Type") == "text/event-stream" {
			return resp, "" // a stream that never ends
		}
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	if resp, body := get(abi.UIPath, ""); resp.StatusCode != http.StatusOK || !strings.Contains(body, "<html") {
		t.Errorf("the page without the token: %d %.60q, want 200 and the page", resp.StatusCode, body)
	}
	if resp, body := get(abi.UIPath+"session", ""); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"authorized":false`) {
		t.Errorf("the session without the token: %d %q, want 200 and not authorized", resp.StatusCode, body)
	}
	if resp, body := get(abi.UIPath+"session", rightToken); !strings.Contains(body, `"authorized":true`) {
		t.Errorf("the session with the cookie: %d %q, want authorized", resp.StatusCode, body)
	}
	if resp, body := get(abi.UIPath+"events", ""); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `"reason":"Unauthorized"`) {
		t.Errorf("the events without the token: %d %q, want 401 Unauthorized Status", resp.StatusCode, body)
	}
	if resp, _ := get(abi.UIPath+"events", rightToken); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("the events with the cookie: %d %q, want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
