package abi

import (
	"net/http"
	"strings"
)

// The rule of ReservedCookies, in one place for every path by which a
// request reaches a pod or a pod's answer leaves it (docs/ui.md, "The
// token"). Names compare case-insensitively, so that no spelling of a
// reserved name slips through. It lives here rather than in the pod
// runtime so that the Ingress and port-forward apply it without importing
// that runtime.

// DropReservedCookies takes the ReservedCookies out of the Cookie headers
// of h: the web view's session cookie goes with every request a browser
// makes to this host, whatever the port, and a pod must never see the
// cluster token. The pod runtime calls it for every request a pod handles
// (from the Ingress, the pod port and other pods' calls alike); the
// Ingress and port-forward call it too before a request leaves for
// another node, so that the token stays on the node that received it.
func DropReservedCookies(h http.Header) {
	for name, values := range h {
		if !strings.EqualFold(name, "Cookie") {
			continue
		}
		kept := values[:0:0]
		for _, v := range values {
			if v, _ = WithoutReservedCookies(v); v != "" {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			delete(h, name)
		} else {
			h[name] = kept
		}
	}
}

// WithoutReservedCookies returns the value of a Cookie header without its
// pairs that name one of ReservedCookies, the other pairs unchanged, and
// whether it removed any. "" means no pair is left.
func WithoutReservedCookies(header string) (string, bool) {
	pairs := strings.Split(header, ";")
	kept := pairs[:0]
	for _, p := range pairs {
		if !cookiePairReserved(p) {
			kept = append(kept, strings.TrimSpace(p))
		}
	}
	if len(kept) == len(pairs) {
		return header, false
	}
	return strings.Join(kept, "; "), true
}

// SetsReservedCookie reports whether a Set-Cookie header's value sets one
// of ReservedCookies.
func SetsReservedCookie(value string) bool {
	pair, _, _ := strings.Cut(value, ";")
	return cookiePairReserved(pair)
}

// cookiePairReserved reports whether one name=value pair names a reserved
// cookie. A pair with no name is a nameless cookie, which a browser sends
// as its value alone: that value is read as a pair in turn.
func cookiePairReserved(pair string) bool {
	name, value, _ := strings.Cut(pair, "=")
	name = strings.TrimSpace(name)
	if name == "" {
		name, _, _ = strings.Cut(value, "=")
		name = strings.TrimSpace(name)
	}
	for _, r := range ReservedCookies {
		if strings.EqualFold(name, r) {
			return true
		}
	}
	return false
}
