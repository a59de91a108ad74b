package ingress

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
)

func TestNormalizeHost(t *testing.T) {
	// "The controller normalizes the Host header to lowercase and strips the port."
	for _, tt := range []struct{ in, want string }{
		{"shop.example.com", "shop.example.com"},
		{"Shop.EXAMPLE.com", "shop.example.com"},
		{"shop.example.com:8080", "shop.example.com"},
		{"SHOP.example.com:80", "shop.example.com"},
		{"127.0.0.1:31380", "127.0.0.1"},
		{"[::1]:80", "::1"},
		{"", ""},
	} {
		if got := normalizeHost(tt.in); got != tt.want {
			t.Errorf("normalizeHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPathMatches(t *testing.T) {
	for _, tt := range []struct {
		spec     string
		pathType networkingv1.PathType
		rule     string
		path     string
		want     bool
	}{
		{"Exact matches byte for byte", exact, "/api", "/api", true},
		{"Exact matches byte for byte", exact, "/api", "/api/", false},
		{"Exact matches byte for byte", exact, "/api", "/api/x", false},
		{"Exact matches byte for byte", exact, "/api", "/API", false},
		{"Exact matches byte for byte", exact, "/api/", "/api", false},
		{"Exact matches byte for byte", exact, "/", "/", true},
		{"Exact matches byte for byte", exact, "/", "/x", false},
		{"/api matches /api", prefix, "/api", "/api", true},
		{"/api matches /api and /api/x", prefix, "/api", "/api/x", true},
		{"/api matches /api and /api/x", prefix, "/api", "/api/", true},
		{"/api matches /api and /api/x", prefix, "/api", "/api/x/y", true},
		{"but not /apix", prefix, "/api", "/apix", false},
		{"but not /apix", prefix, "/api", "/ap", false},
		{"ignore a trailing slash on the rule", prefix, "/api/", "/api", true},
		{"ignore a trailing slash on the rule", prefix, "/api/", "/api/x", true},
		{"ignore a trailing slash on the rule", prefix, "/api/", "/apix", false},
		{"Prefix and ImplementationSpecific match path segments", prefix, "/a/b", "/a/b/c", true},
		{"Prefix and ImplementationSpecific match path segments", prefix, "/a/b", "/a/bc", false},
		{"Prefix and ImplementationSpecific match path segments", prefix, "/", "/anything/at/all", true},
		{"Prefix and ImplementationSpecific match path segments", implSpec, "/api", "/api/x", true},
		{"Prefix and ImplementationSpecific match path segments", implSpec, "/api", "/apix", false},
		{"Prefix and ImplementationSpecific ... ignore a trailing slash on the rule", implSpec, "/api/", "/api", true},
	} {
		if got := pathMatches(tt.pathType, tt.rule, tt.path); got != tt.want {
			t.Errorf("%q: %s rule %q, path %q: match = %v, want %v", tt.spec, tt.pathType, tt.rule, tt.path, got, tt.want)
		}
	}
}

func TestWildcardMatches(t *testing.T) {
	// "Wildcard match, where *.domain matches a single subdomain label."
	for _, tt := range []struct {
		pattern, host string
		want          bool
	}{
		{"*.example.com", "shop.example.com", true},
		{"*.example.com", "a.b.example.com", false},
		{"*.example.com", "example.com", false},
		{"*.example.com", ".example.com", false},
		{"*.example.com", "shopexample.com", false},
		{"shop.example.com", "shop.example.com", false}, // not a wildcard
	} {
		if got := wildcardMatches(tt.pattern, tt.host); got != tt.want {
			t.Errorf("wildcardMatches(%q, %q) = %v, want %v", tt.pattern, tt.host, got, tt.want)
		}
	}
}
