package static

import (
	"strconv"
	"strings"
)

// acceptsGzip reports whether Accept-Encoding values accept gzip: gzip
// listed with q > 0, or, when gzip is not listed, "*" with q > 0. An explicit
// "gzip;q=0" refuses gzip even next to "*" (RFC 9110, section 12.5.3).
func acceptsGzip(values ...string) bool {
	return acceptQ(values, "gzip") > 0
}

// acceptsBrotli reports whether Accept-Encoding values accept br, by the
// same rules as AcceptsGzip.
func acceptsBrotli(values ...string) bool {
	return acceptQ(values, "br") > 0
}

// acceptQ is the q-value Accept-Encoding values give coding ("gzip" also
// matches the old alias "x-gzip"): its own when listed, else that of "*",
// else 0.
func acceptQ(values []string, coding string) float64 {
	codingQ, starQ := -1.0, -1.0 // -1: not listed
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.TrimSpace(name)
			switch {
			case strings.EqualFold(name, coding), coding == "gzip" && strings.EqualFold(name, "x-gzip"):
				codingQ = qValue(params)
			case name == "*":
				starQ = qValue(params)
			}
		}
	}
	switch {
	case codingQ >= 0:
		return codingQ
	case starQ >= 0:
		return starQ
	}
	return 0
}

// qValue reads q from the parameters of one Accept-Encoding element; 1 when
// absent or malformed.
func qValue(params string) float64 {
	q := 1.0
	for param := range strings.SplitSeq(params, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(param), "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
				q = v
			}
		}
	}
	return q
}
