package k32

import (
	"sort"
	"strings"
)

// Header holds HTTP header fields, as net/http's Header does: keys are in
// canonical form ("Content-Type") and a key may have several values. It has
// the same underlying type as http.Header, so http.Header(h) converts it
// without copying.
type Header map[string][]string

// Get returns the first value of key, or "". key is case-insensitive.
func (h Header) Get(key string) string {
	if v := h[CanonicalHeaderKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values returns every value of key. key is case-insensitive.
func (h Header) Values(key string) []string { return h[CanonicalHeaderKey(key)] }

// Set replaces the values of key with value.
func (h Header) Set(key, value string) { h[CanonicalHeaderKey(key)] = []string{value} }

// Add appends value to the values of key.
func (h Header) Add(key, value string) {
	k := CanonicalHeaderKey(key)
	h[k] = append(h[k], value)
}

// Del removes every value of key.
func (h Header) Del(key string) { delete(h, CanonicalHeaderKey(key)) }

// Clone returns a copy of h, or nil when h is nil.
func (h Header) Clone() Header {
	if h == nil {
		return nil
	}
	c := make(Header, len(h))
	for k, v := range h {
		c[k] = append([]string(nil), v...)
	}
	return c
}

// CanonicalHeaderKey returns key with its first letter and every letter after
// a hyphen in upper case and the rest in lower case ("content-type" becomes
// "Content-Type"), as net/textproto does. A key holding a byte that is not
// valid in a header name is returned unchanged.
func CanonicalHeaderKey(key string) string {
	upper := true
	canonical := true
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !isTokenByte(c) {
			return key
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			canonical = false
		}
		upper = c == '-'
	}
	if canonical {
		return key // the common case allocates nothing
	}
	b := []byte(key)
	upper = true
	for i, c := range b {
		switch {
		case upper && 'a' <= c && c <= 'z':
			b[i] = c - ('a' - 'A')
		case !upper && 'A' <= c && c <= 'Z':
			b[i] = c + ('a' - 'A')
		}
		upper = c == '-'
	}
	return string(b)
}

// isTokenByte reports whether c may appear in a header name (RFC 9110 tchar).
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// validHeaderName reports whether name is a non-empty token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isTokenByte(name[i]) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether value can travel as one header line: it
// must not hold CR, LF or NUL (the host refuses them too).
func validHeaderValue(value string) bool {
	return !strings.ContainsAny(value, "\r\n\x00")
}

// parseHeaderLines parses the "Name: value\r\n" lines of k32_req_headers and
// k32_http_call into a Header. It accepts bare "\n" line ends, trims the
// optional white space around values, and skips lines without a colon or
// with an invalid name rather than failing: the host already validated them.
func parseHeaderLines(s string) Header {
	h := make(Header)
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		line = strings.TrimSuffix(line, "\r")
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		name := line[:colon]
		if !validHeaderName(name) {
			continue
		}
		h.Add(name, strings.Trim(line[colon+1:], " \t"))
	}
	return h
}

// formatHeaderLines writes h as "Name: value\r\n" lines, keys sorted so a
// request is the same bytes each time. It fails with ErrInval for a name or
// value that cannot travel as a header line.
func formatHeaderLines(h Header) (string, error) {
	if len(h) == 0 {
		return "", nil
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if !validHeaderName(k) {
			return "", ErrInval
		}
		for _, v := range h[k] {
			if !validHeaderValue(v) {
				return "", ErrInval
			}
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteString("\r\n")
		}
	}
	return b.String(), nil
}
