package kubeletapi

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"strings"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// guard lets a request through only when its client is known and allowed,
// as a kubelet in webhook mode does (docs/kubeletapi.md), and fails
// closed: a client certificate the cluster's CA signed, else a bearer
// token a TokenReview authenticates; then a SubjectAccessReview of the
// request's access. A review that cannot be made answers 503.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := s.authenticate(r)
		switch {
		case err != nil:
			unavailable(w, "cannot check the client's credentials: %v", err)
			return
		case u == nil:
			http.Error(w, "Unauthorized: the kubelet API of a kube32 node takes a client certificate the cluster's CA signed, or a bearer token the cluster authenticates", http.StatusUnauthorized)
			return
		}
		a := accessOf(r)
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

// unavailable answers a review that could not be made.
func unavailable(w http.ResponseWriter, format string, args ...any) {
	w.Header().Set("Retry-After", "5")
	http.Error(w, fmt.Sprintf(format, args...), http.StatusServiceUnavailable)
}

// authenticate returns the request's user: nil for none (no credential,
// or one the cluster does not know); err when the cluster could not be
// asked. A client certificate is tried first, then a bearer token, as a
// kubelet tries them.
func (s *Server) authenticate(r *http.Request) (*user, error) {
	if u := s.certUser(r); u != nil {
		return u, nil
	}
	token, ok := bearer(r)
	if !ok {
		return nil, nil
	}
	return s.reviews.token(r.Context(), token)
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
// it: the verb from the method, the subresource from the path (/stats/
// stats, /metrics/ metrics, /logs/ log, everything else proxy).
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
