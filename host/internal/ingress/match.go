package ingress

import (
	"net"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// normalizeHost lowercases the Host header and strips its port
// (docs/ingress.md, "Matching a request").
func normalizeHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// pathMatches implements the path rules of docs/ingress.md, "Matching a
// request": Exact matches byte for byte; Prefix and ImplementationSpecific
// match whole path segments and ignore a trailing slash on the rule (/api
// matches /api and /api/x, not /apix).
func pathMatches(pathType networkingv1.PathType, rule, path string) bool {
	if pathType == networkingv1.PathTypeExact {
		return rule == path
	}
	rule = strings.TrimRight(rule, "/")
	if rule == "" {
		return true // "/" matches every path
	}
	return path == rule || strings.HasPrefix(path, rule+"/")
}

// wildcardMatches reports whether host matches "*.domain": exactly one label
// in front of domain.
func wildcardMatches(pattern, host string) bool {
	domain, ok := strings.CutPrefix(pattern, "*.")
	if !ok {
		return false
	}
	label, rest, ok := strings.Cut(host, ".")
	return ok && label != "" && rest == domain
}

// better reports whether candidate beats best: the longest path wins, and
// Exact wins ties over Prefix. Equal routes keep the earlier one, which
// comes from the first Ingress in namespace/name order.
func better(candidate, best *route) bool {
	if best == nil {
		return true
	}
	if len(candidate.matchLen()) != len(best.matchLen()) {
		return len(candidate.matchLen()) > len(best.matchLen())
	}
	return candidate.pathType == networkingv1.PathTypeExact && best.pathType != networkingv1.PathTypeExact
}
