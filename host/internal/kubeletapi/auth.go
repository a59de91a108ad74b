package kubeletapi

import (
	"crypto/x509"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// guard lets a request through only when its client is known and allowed,
// as a kubelet in webhook mode does (docs/kubeletapi.md), and fails
// closed: a client certificate the cluster's CA signed, else a bearer
// token a TokenReview authenticates; then a SubjectAccessReview of the
// request's access. A review that cannot be made answers 503. It guards
// each route of the API, so that an unknown path or method is refused
// before any review.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := accessOf(r)
		u := s.authenticate(w, r, a)
		if u == nil {
			return
		}
		ok, err := s.reviews.allowed(r.Context(), u, a)
		switch {
		case err != nil:
			unavailable(w, "cannot check what user %s may do: %v", u.name, err)
		case !ok:
			http.Error(w, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=nodes, subresource=%s)", u.name, a.verb, a.subresource), http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// authenticate returns the request's user, or answers the request and
// returns nil. A client certificate is tried first, then a bearer token,
// as a kubelet tries them. A token whose answer the node keeps costs
// nothing; any other is reviewed within its client address's budget of
// reviews (apiauth.Budget): past it the answer is 429, unasked.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, a access) *user {
	if u := s.certUser(r); u != nil {
		return u
	}
	token, ok := bearer(r)
	if !ok {
		s.unauthorized(w, a)
		return nil
	}
	u, kept := s.reviews.kept(token)
	if !kept {
		if wait := s.tokenReviews.Take(httplimit.Client(r.RemoteAddr)); wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
			http.Error(w, "too many new bearer tokens from this address: try again after Retry-After seconds", http.StatusTooManyRequests)
			return nil
		}
		var err error
		if u, err = s.reviews.token(r.Context(), token); err != nil {
			unavailable(w, "cannot check the client's credentials: %v", err)
			return nil
		}
	}
	if u == nil {
		s.unauthorized(w, a)
	}
	return u
}

// unauthorized answers a request without credentials the node takes,
// naming the access it needs (a kubelet's nodes/<subresource>).
func (s *Server) unauthorized(w http.ResponseWriter, a access) {
	http.Error(w, fmt.Sprintf("Unauthorized: the kubelet API of a kube32 node takes a client certificate the cluster's CA signed, "+
		"or a bearer token the cluster authenticates, of a user allowed to %s nodes/%s (node %s)", a.verb, a.subresource, s.cfg.NodeName),
		http.StatusUnauthorized)
}

// unavailable answers a review that could not be made.
func unavailable(w http.ResponseWriter, format string, args ...any) {
	w.Header().Set("Retry-After", "5")
	http.Error(w, fmt.Sprintf(format, args...), http.StatusServiceUnavailable)
}

// certUser is the user of the request's client certificate when
// Config.ClientCAs signed it for client authentication: its common name,
// in its organizations as groups.
func (s *Server) certUser(r *http.Request) *user {
	st := httplimit.TLSState(r)
	if st == nil || len(st.PeerCertificates) == 0 || s.cfg.ClientCAs == nil {
		return nil
	}
	intermediates := x509.NewCertPool()
	for _, c := range st.PeerCertificates[1:] {
		intermediates.AddCert(c)
	}
	leaf := st.PeerCertificates[0]
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: s.cfg.ClientCAs, Intermediates: intermediates,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return nil
	}
	if leaf.Subject.CommonName == "" {
		return nil
	}
	return &user{name: leaf.Subject.CommonName, groups: leaf.Subject.Organization}
}

// bearer is the request's bearer token.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// accessOf is what a request asks of the node, mapped as the kubelet maps
// it (GetRequestAttributes of its server/auth.go): the verb from the
// method, the subresource from the path (/stats/ stats, /metrics/ metrics,
// /logs/ log, everything else proxy: /containerLogs/ and /portForward/
// too).
func accessOf(r *http.Request) access {
	verb := strings.ToLower(r.Method)
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		verb = "get"
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
	}
	sub := "proxy"
	switch p := r.URL.Path; {
	case underPath(p, "/stats"):
		sub = "stats"
	case underPath(p, "/metrics"):
		sub = "metrics"
	case underPath(p, "/logs"):
		sub = "log"
	}
	return access{verb: verb, subresource: sub}
}

// underPath reports whether p is root or below it.
func underPath(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}
