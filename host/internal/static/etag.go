package static

import (
	"strings"
	"time"
)

// zeroTime is the modification time the prepared answers give
// http.ServeContent: they send no Last-Modified, so only the ETag decides.
var zeroTime time.Time

// noneMatch reports whether the If-None-Match value inm lets the answer
// with ETag etag be sent, by the weak comparison that http.ServeContent
// uses: false when inm is "*" or lists etag, weak or not. A malformed
// value stops the scan, as there.
func noneMatch(inm, etag string) bool {
	buf := inm
	for {
		buf = strings.TrimLeft(buf, " \t\r\n")
		if buf == "" {
			return true
		}
		if buf[0] == ',' {
			buf = buf[1:]
			continue
		}
		if buf[0] == '*' {
			return false
		}
		tag, rest := scanETag(buf)
		if tag == "" {
			return true
		}
		if strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
			return false
		}
		buf = rest
	}
}

// scanETag reads the entity tag at the start of s (RFC 9110, section 8.8.3)
// and returns it and what follows; "" when s does not start with one.
func scanETag(s string) (etag, rest string) {
	start := 0
	if strings.HasPrefix(s, "W/") {
		start = 2
	}
	if len(s) <= start || s[start] != '"' {
		return "", ""
	}
	for i := start + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i+1], s[i+1:]
		case c == 0x21 || c >= 0x23 && c <= 0x7E || c >= 0x80:
		default:
			return "", ""
		}
	}
	return "", ""
}
