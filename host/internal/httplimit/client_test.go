package httplimit

import "testing"

// One host's addresses count as one client: an IPv6 /64 is one client,
// an IPv4-mapped address is its IPv4 address.
func TestClientCountsAnIPv6Slash64AsOne(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:5000":             "127.0.0.1",
		"[::ffff:127.0.0.2]:80":      "127.0.0.2",
		"[2001:db8:1:2:a::1]:443":    "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::9]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:443":      "2001:db8:1:3::/64",
		"[fe80::1%eth0]:80":          "fe80::/64",
		"not an address":             "not an address",
	} {
		if got := Client(addr); got != want {
			t.Errorf("Client(%q) = %q, want %q", addr, got, want)
		}
	}
}
