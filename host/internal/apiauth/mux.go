package apiauth

import (
	"net/http"
	"path"

	"github.com/kube32/kube32/host/internal/apistatus"
)

// Mux routes the requests of one API port (plain or HTTPS) to what is
// mounted there: the Kubernetes API, the web view, the channel endpoint.
// Handle puts a handler behind the gate; only HandlePublic and
// HandleConnect, named at the call, skip it. A request that matches no
// pattern, or matches one only by path (405), or whose path is not clean
// (which the mux would redirect), meets the gate too, so that an unknown
// path tells nothing to a client without the token. Before any of it, a
// port without a token refuses a Host that is not the machine's own
// (Gate.CheckHost).
type Mux struct {
	gate    *Gate
	mux     *http.ServeMux
	connect http.Handler
}

// NewMux returns an empty port behind gate.
func NewMux(gate *Gate) *Mux {
	return &Mux{gate: gate, mux: http.NewServeMux()}
}

// Gate is the gate of the port, for handlers that check a token themselves
// (a login) or ask whether a request carries it.
func (m *Mux) Gate() *Gate { return m.gate }

// Handle serves pattern (an http.ServeMux pattern) with h, behind the gate.
func (m *Mux) Handle(pattern string, h http.Handler) {
	m.mux.Handle(pattern, m.gate.Require(h))
}

// HandlePublic serves pattern with h without the token: only for what
// carries no cluster data (the health checks, a page's own files, its
// login) or checks the token itself.
func (m *Mux) HandlePublic(pattern string, h http.Handler) {
	m.mux.Handle(pattern, h)
}

// HandleConnect serves CONNECT requests, which name a host rather than a
// path, with h, without the token: h checks it itself. Without h, CONNECT
// meets the gate, then 405.
func (m *Mux) HandleConnect(h http.Handler) { m.connect = h }

func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := m.gate.CheckHost(r); err != nil {
		apistatus.Write(w, err)
		return
	}
	if r.Method == http.MethodConnect {
		if m.connect != nil {
			m.connect.ServeHTTP(w, r)
			return
		}
		m.gate.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		})).ServeHTTP(w, r)
		return
	}
	if _, pattern := m.mux.Handler(r); pattern == "" || !clean(r.URL.EscapedPath()) {
		// No pattern (404 or 405) or a redirect to the clean path:
		// answered behind the gate.
		m.gate.Require(m.mux).ServeHTTP(w, r)
		return
	}
	m.mux.ServeHTTP(w, r)
}

// clean reports whether p is a path http.ServeMux serves as it is: no
// "//", "." or ".." element (a trailing slash is kept).
func clean(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if p[len(p)-1] == '/' && c != "/" {
		c += "/"
	}
	return c == p
}
