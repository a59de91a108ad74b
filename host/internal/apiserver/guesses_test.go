package apiserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

const rightToken = "the-cluster-token"

// guessServer serves the API with rightToken on a stopped clock that
// advance moves, and keeps its log lines.
type guessServer struct {
	*httptest.Server
	mu    sync.Mutex
	now   time.Time
	lines []string
}

func newGuessServer(t *testing.T, tls bool) *guessServer {
	g := &guessServer{now: time.Unix(1e9, 0)}
	gate := apiauth.New(apiauth.Config{Token: rightToken, Logf: func(format string, args ...any) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.lines = append(g.lines, format)
	}, Clock: func() time.Time { g.mu.Lock(); defer g.mu.Unlock(); return g.now }})
	s := New(Config{Store: store.New(), Token: rightToken, Gate: gate})
	g.Server = testhttp.Start(t, s, tls)
	return g
}

func (g *guessServer) advance(d time.Duration) { g.mu.Lock(); g.now = g.now.Add(d); g.mu.Unlock() }

func (g *guessServer) logLines() int { g.mu.Lock(); defer g.mu.Unlock(); return len(g.lines) }

// from is a client whose connections come from the loopback address ip.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

func bearer(t *testing.T, c *http.Client, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/api/v1/namespaces", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestWrongBearerTokensGet429AfterTheBurst is the rule of docs/serve.md,
// "Hostile clients": a client address may send abi.TokenGuessBurst wrong
// tokens, then one per 1/abi.TokenGuessRate s; past that every token it
// sends, the right one too, gets 429 with Retry-After unchecked, while
// other addresses are not slowed; and the refusals are logged at most once
// a second.
func TestWrongBearerTokensGet429AfterTheBurst(t *testing.T) {
	g := newGuessServer(t, false)
	start := time.Now()
	attacker, other := from("127.0.0.1"), from("127.0.0.2")
	for i := range abi.TokenGuessBurst {
		if resp := bearer(t, attacker, g.URL, "guess"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	resp := bearer(t, attacker, g.URL, "guess")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("wrong token past the burst: %d Retry-After %q, want 429 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp := bearer(t, attacker, g.URL, rightToken); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the right token past the burst: %d, want 429 (unchecked)", resp.StatusCode)
	}
	if resp := bearer(t, other, g.URL, "guess"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("another address's wrong token: %d, want 401", resp.StatusCode)
	}
	if resp := bearer(t, other, g.URL, rightToken); resp.StatusCode != http.StatusOK {
		t.Errorf("another address's right token: %d, want 200", resp.StatusCode)
	}
	g.advance(time.Second / abi.TokenGuessRate) // one token refilled
	if resp := bearer(t, attacker, g.URL, rightToken); resp.StatusCode != http.StatusOK {
		t.Errorf("the right token once the budget refilled: %d, want 200", resp.StatusCode)
	}
	bearer(t, attacker, g.URL, "guess") // spends it
	if resp := bearer(t, attacker, g.URL, "guess"); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a second wrong token after one refilled: %d, want 429", resp.StatusCode)
	}
	lines, most := g.logLines(), 1+int(time.Since(start)/abi.LogRateInterval)
	if lines < 1 || lines > most+1 { // one address each
		t.Errorf("%d [AUTH] lines, want 1 to %d", lines, most+1)
	}
	if lines > 0 && !strings.HasPrefix(g.lines[0], "[AUTH] ") {
		t.Errorf("log line %q", g.lines[0])
	}
}

// TestSessionCookieOnlyOverHTTPSForReads: the API takes the session
// cookie over HTTPS for reads, never over plain HTTP nor for a write, and
// never the old cookie.
func TestSessionCookieOnlyOverHTTPSForReads(t *testing.T) {
	plain, tls := newGuessServer(t, false), newGuessServer(t, true)
	do := func(srv *guessServer, method, cookie string) int {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+"/api/v1/namespaces", strings.NewReader(`{"metadata":{"name":"x"}}`))
		req.Header.Set("Cookie", cookie)
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	session := abi.SessionCookie + "=" + rightToken
	for _, c := range []struct {
		srv    *guessServer
		method string
		cookie string
		want   int
	}{
		{tls, http.MethodGet, session, http.StatusOK},
		{tls, http.MethodPost, session, http.StatusUnauthorized},
		{plain, http.MethodGet, session, http.StatusUnauthorized},
		{tls, http.MethodGet, abi.TokenCookie + "=" + rightToken, http.StatusUnauthorized},
	} {
		if got := do(c.srv, c.method, c.cookie); got != c.want {
			t.Errorf("%s over %s with %q: %d, want %d", c.method, c.srv.URL, c.cookie, got, c.want)
		}
	}
}
