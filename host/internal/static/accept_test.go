package static

import "testing"

func TestAcceptsGzip(t *testing.T) {
	// "When a file has a .gz variant and the client sends Accept-Encoding: gzip"
	for accept, want := range map[string]bool{
		"gzip":                    true,
		"GZIP":                    true,
		"deflate, gzip;q=0.5, br": true,
		"gzip; q=0.001":           true,
		"*":                       true,
		"x-gzip":                  true,
		"":                        false,
		"identity":                false,
		"br, deflate":             false,
		"gzip;q=0":                false,
		"gzip; q=0.0":             false,
		"gzip;q=0, *":             false, // an explicit refusal beats the wildcard
		"*;q=0":                   false,
		"*;q=0, gzip":             true,
	} {
		if got := acceptsGzip(accept); got != want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", accept, got, want)
		}
	}
}

func TestAcceptsBrotli(t *testing.T) {
	for accept, want := range map[string]bool{
		"br":                true,
		"gzip, deflate, br": true,
		"Br;q=0.1":          true,
		"*":                 true,
		"gzip":              false,
		"":                  false,
		"br;q=0":            false,
		"br;q=0, *":         false,
		"*;q=0, br":         true,
		"brotli":            false, // not the registered name
	} {
		if got := acceptsBrotli(accept); got != want {
			t.Errorf("AcceptsBrotli(%q) = %v, want %v", accept, got, want)
		}
	}
}
