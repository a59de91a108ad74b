package abi

import "strings"

// The rule of ReservedCookies, in one place for every path by which a
// request reaches a pod or a pod's answer leaves it (docs/ui.md, "The
// token"). Names compare case-insensitively, so that no spelling of a
// reserved name slips through.

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
