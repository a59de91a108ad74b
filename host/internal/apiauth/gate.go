// Package apiauth is the one check of the cluster token on the API port:
// the Gate decides whether a request carries the token (as a bearer token,
// or over HTTPS for reads in the web view's session cookie) within its
// client's budget of wrong ones, and the Mux serves every handler of the
// port behind it unless it is mounted as public, so that nothing mounted
// there is reached without the token by accident (docs/design.md). It
// also holds the rules that keep web pages out of the port (docs/serve.md,
// "Web pages"): which Host a port without a token answers (hosts.go),
// which the Mux checks for every request, and which media types each
// endpoint reads in a body (media.go), which each checks before reading.
package apiauth

import (
	"crypto/subtle"
	"net/http"
	"regexp"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apistatus"
	"github.com/kube32/kube32/host/internal/httplimit"
)

// Config is what a Gate checks against.
type Config struct {
	// Token, when set, is the bearer token every request behind the gate
	// must carry; empty lets every request through.
	Token string
	// AcceptHosts are the host names a port without a token answers
	// besides loopback and localhost (ParseAcceptHosts, CheckHost).
	AcceptHosts []*regexp.Regexp
	// Logf receives the "[AUTH]" lines of clients that send wrong tokens,
	// at most once per abi.LogRateInterval each; nil logs nothing.
	Logf func(format string, args ...any)
	// Clock, when set, is the time of the budgets of wrong tokens and of
	// their log lines (tests stop it); nil is time.Now.
	Clock func() time.Time
}

// Gate checks the cluster token. One Gate serves a whole API port, so that
// a client's wrong tokens count in one budget wherever it sends them.
type Gate struct {
	token       string
	acceptHosts []*regexp.Regexp
	guesses     guesses
}

// New returns the gate of cfg.
func New(cfg Config) *Gate {
	return &Gate{token: cfg.Token, acceptHosts: cfg.AcceptHosts, guesses: guesses{logf: cfg.Logf, now: cfg.Clock}}
}

// Open reports whether the gate needs no token: the cluster has none.
func (g *Gate) Open() bool { return g.token == "" }

// Require is the middleware of the API port: without the token, h is not
// called and the client gets 401 as a Status, or 429 with Retry-After past
// its budget of wrong tokens (guesses.go).
func (g *Gate) Require(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := g.Authorize(r); !ok {
			if wait > 0 {
				WriteTooManyGuesses(w, wait)
			} else {
				apistatus.Write(w, apierrors.NewUnauthorized("Unauthorized"))
			}
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Authorized reports whether r may pass the gate (Authorize).
func (g *Gate) Authorized(r *http.Request) bool {
	ok, _ := g.Authorize(r)
	return ok
}

// Authorize reports whether r may pass the gate: the gate is open, or r
// carries the cluster token as a bearer token, or, over HTTPS and for
// reads only, in the web view's abi.SessionCookie (a cookie goes with any
// request the browser makes, so it never authorizes a write). A token is
// checked within its client's budget of wrong ones (guesses.go): past it,
// wait is how long until the next is.
func (g *Gate) Authorize(r *http.Request) (ok bool, wait time.Duration) {
	if g.Open() {
		return true, 0
	}
	token, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found && OverHTTPS(r) && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		if c, err := r.Cookie(abi.SessionCookie); err == nil {
			token, found = c.Value, true
		}
	}
	if !found {
		return false, 0
	}
	return g.CheckToken(r, token)
}

// CheckToken checks one token that r's client sent (a login's), unless the
// client has spent its budget of wrong ones: then wait is how long until
// the next is checked.
func (g *Gate) CheckToken(r *http.Request, token string) (ok bool, wait time.Duration) {
	client := httplimit.Client(r.RemoteAddr)
	if wait := g.guesses.retryAfter(client); wait > 0 {
		return false, wait
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(g.token)) == 1 {
		return true, 0
	}
	g.guesses.wrong(client)
	return false, 0
}
