package ingress

import (
	"net/http"
	"strings"
	"sync/atomic"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/host/internal/httperror"
)

// route is one path of one Ingress rule, with its backend resolved.
type route struct {
	host     string // "" for rules without a host
	path     string
	pathType networkingv1.PathType
	ingress  string // "<namespace>/<name>", for messages
	backend  http.Handler
	// requests counts what the route answered for abi.AnnotationStatsTopic
	// (shared by the routes of one Ingress, across rebuilds).
	requests *atomic.Int64
}

// matchLen is the part of the rule's path that counts for "longest wins".
func (r *route) matchLen() string {
	if r.pathType == networkingv1.PathTypeExact {
		return r.path
	}
	return strings.TrimRight(r.path, "/")
}

// table is the routing table: rules by host group, in namespace/name order.
type table struct {
	routes         []*route
	defaultBackend http.Handler
}

// lookup finds the route for a request. The host groups are, from the most
// specific: exact host, single-label wildcard, rules without a host. Only the
// most specific group with a rule for the request's host is consulted: when
// its paths do not match, the request is unmatched (it does not fall through
// to a less specific group), as docs/ingress.md, "Matching a request", says.
func (t *table) lookup(host, path string) *route {
	host = normalizeHost(host)
	groups := []func(*route) bool{
		func(r *route) bool { return r.host != "" && !strings.HasPrefix(r.host, "*.") && r.host == host },
		func(r *route) bool { return wildcardMatches(r.host, host) },
		func(r *route) bool { return r.host == "" },
	}
	for _, inGroup := range groups {
		var best *route
		consulted := false
		for _, r := range t.routes {
			if !inGroup(r) {
				continue
			}
			consulted = true
			if pathMatches(r.pathType, r.path, path) && better(r, best) {
				best = r
			}
		}
		if consulted {
			return best
		}
	}
	return nil
}

// notFound is the controller's answer when no rule and no default backend
// match: a 404 with a JSON body.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, map[string]string{"error": "no ingress rule matches", "host": normalizeHost(r.Host), "path": r.URL.Path})
}

// writeError is every error the controller answers itself.
func writeError(w http.ResponseWriter, status int, fields map[string]string) {
	httperror.Write(w, status, fields)
}
