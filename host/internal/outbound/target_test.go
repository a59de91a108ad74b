package outbound

import (
	"testing"

	"github.com/kube32/kube32/abi"
)

// TestParseTarget checks each row of the table of docs/calls.md, "Where a URL
// goes", the default ports and what makes a URL malformed.
func TestParseTarget(t *testing.T) {
	tests := []struct {
		rule string
		url  string
		want Target
		err  abi.Errno // expected code, 0 for none
	}{
		{rule: "<service> is the Service in the caller's namespace, on its first port",
			url:  "http://echo/ping",
			want: Target{Kind: ServiceTarget, Scheme: "http", Namespace: "team", Service: "echo", Host: "echo", HostHeader: "echo", RequestURI: "/ping"}},
		{rule: "<service> with a port",
			url:  "http://echo:8080/a?b=c",
			want: Target{Kind: ServiceTarget, Scheme: "http", Namespace: "team", Service: "echo", Host: "echo", Port: 8080, HostHeader: "echo:8080", RequestURI: "/a?b=c"}},
		{rule: "<service>.<namespace> is that Service, else a host outside",
			url:  "http://echo.other/",
			want: Target{Kind: ServiceTarget, Scheme: "http", Namespace: "other", Service: "echo", Host: "echo.other", HostHeader: "echo.other", RequestURI: "/", FallbackOutside: true}},
		{rule: "<service>.<namespace>.svc is the Service",
			url:  "http://echo.other.svc:81",
			want: Target{Kind: ServiceTarget, Scheme: "http", Namespace: "other", Service: "echo", Host: "echo.other.svc", Port: 81, HostHeader: "echo.other.svc:81", RequestURI: "/"}},
		{rule: "<service>.<namespace>.svc.cluster.local is the Service",
			url:  "http://echo.other.svc.cluster.local/x",
			want: Target{Kind: ServiceTarget, Scheme: "http", Namespace: "other", Service: "echo", Host: "echo.other.svc.cluster.local", HostHeader: "echo.other.svc.cluster.local", RequestURI: "/x"}},
		{rule: "names are case-insensitive",
			url:  "HTTP://Echo.Other.SVC/",
			want: Target{Kind: ServiceTarget, Scheme: "http", Namespace: "other", Service: "echo", Host: "echo.other.svc", HostHeader: "Echo.Other.SVC", RequestURI: "/"}},
		{rule: "an IPv4 address is a host outside, on port 80",
			url:  "http://192.168.4.1/status",
			want: Target{Kind: OutsideTarget, Scheme: "http", Host: "192.168.4.1", Port: 80, HostHeader: "192.168.4.1", RequestURI: "/status"}},
		{rule: "any other DNS name is a host outside",
			url:  "http://api.example.com:8080/v1",
			want: Target{Kind: OutsideTarget, Scheme: "http", Host: "api.example.com", Port: 8080, HostHeader: "api.example.com:8080", RequestURI: "/v1"}},
		{rule: "a single label that cannot be a Service name is a host outside",
			url:  "http://9lives/",
			want: Target{Kind: OutsideTarget, Scheme: "http", Host: "9lives", Port: 80, HostHeader: "9lives", RequestURI: "/"}},
		{rule: "two labels that cannot be a Service and namespace are a host outside",
			url:  "http://my_host.lan/",
			want: Target{Kind: OutsideTarget, Scheme: "http", Host: "my_host.lan", Port: 80, HostHeader: "my_host.lan", RequestURI: "/"}},
		{rule: "https:// always names a host outside, on port 443",
			url:  "https://echo/",
			want: Target{Kind: OutsideTarget, Scheme: "https", Host: "echo", Port: 443, HostHeader: "echo", RequestURI: "/"}},
		{rule: "https:// with a port",
			url:  "https://example.com:8443",
			want: Target{Kind: OutsideTarget, Scheme: "https", Host: "example.com", Port: 8443, HostHeader: "example.com:8443", RequestURI: "/"}},
		{rule: "the fragment never leaves the caller",
			url:  "http://www.example.com/p?q#frag",
			want: Target{Kind: OutsideTarget, Scheme: "http", Host: "www.example.com", Port: 80, HostHeader: "www.example.com", RequestURI: "/p?q"}},
		{rule: "escaped path bytes stay escaped",
			url:  "http://www.example.com/a%2Fb",
			want: Target{Kind: OutsideTarget, Scheme: "http", Host: "www.example.com", Port: 80, HostHeader: "www.example.com", RequestURI: "/a%2Fb"}},
		{rule: "a .svc name that cannot be a Service is not found", url: "http://9x.other.svc/", err: abi.ErrNoEnt},
		{rule: "malformed: another scheme", url: "ftp://echo/", err: abi.ErrInval},
		{rule: "malformed: no scheme", url: "echo/ping", err: abi.ErrInval},
		{rule: "malformed: no host", url: "http:///ping", err: abi.ErrInval},
		{rule: "malformed: user info", url: "http://user:pw@echo/", err: abi.ErrInval},
		{rule: "malformed: port 0", url: "http://echo:0/", err: abi.ErrInval},
		{rule: "malformed: port too large", url: "http://echo:65536/", err: abi.ErrInval},
		{rule: "malformed: empty port", url: "http://echo:/", err: abi.ErrInval},
		{rule: "malformed: port not a number", url: "http://echo:http/", err: abi.ErrInval},
		{rule: "malformed: IPv6 literal (nodes are IPv4 only)", url: "http://[::1]:80/", err: abi.ErrInval},
		{rule: "malformed: space", url: "http://echo/a b", err: abi.ErrInval},
		{rule: "malformed: control byte", url: "http://echo/\x01", err: abi.ErrInval},
		{rule: "malformed: bad host name", url: "http://ex*mple.com/", err: abi.ErrInval},
		{rule: "malformed: empty label", url: "http://a..b/", err: abi.ErrInval},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got, err := ParseTarget(tt.url, "team")
			if tt.err != 0 {
				wantErrno(t, err, tt.err)
				return
			}
			if err != nil {
				t.Fatalf("ParseTarget(%q): %v", tt.url, err)
			}
			if got != tt.want {
				t.Errorf("ParseTarget(%q) =\n  %+v\nwant\n  %+v", tt.url, got, tt.want)
			}
		})
	}
}

// TestTargetOutside checks the outside form of "<service>.<namespace>":
// the URL's name on the URL's port, else 80 (not the Service's first port).
func TestTargetOutside(t *testing.T) {
	for url, port := range map[string]int{"http://echo.example/": 80, "http://echo.example:8080/": 8080} {
		tg, err := ParseTarget(url, "team")
		if err != nil {
			t.Fatal(err)
		}
		o := tg.Outside()
		if o.Kind != OutsideTarget || o.Host != "echo.example" || o.Port != port || o.FallbackOutside || o.Service != "" {
			t.Errorf("%s: Outside() = %+v, want echo.example:%d outside", url, o, port)
		}
	}
}
