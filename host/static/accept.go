package static

import (
	"strconv"
	"strings"
)

// AcceptsGzip reports whether Accept-Encoding values accept gzip: gzip
// listed with q > 0, or, when gzip is not listed, "*" with q > 0. An explicit
// "gzip;q=0" refuses gzip even next to "*" (RFC 9110, section 12.5.3).
func AcceptsGzip(values ...string) bool {
	gzipQ, starQ := -1.0, -1.0 // -1: not listed
	for _, part := range strings.Split(strings.Join(values, ","), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for _, param := range strings.Split(params, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(param), "=")
			if strings.EqualFold(strings.TrimSpace(name), "q") {
				if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
					q = v
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
