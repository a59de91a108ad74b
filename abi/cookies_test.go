package abi_test

import (
	"testing"

	"github.com/kube32/kube32/abi"
)

// TestReservedCookiesNeverReachAPod is the rule of docs/ui.md, "The token":
// every pair naming a reserved cookie leaves a Cookie header, in any
// spelling, and the other pairs stay as they were.
func TestReservedCookiesNeverReachAPod(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a=1; b=2", "a=1; b=2"},
		{abi.SessionCookie + "=s3cret", ""},
		{"a=1; " + abi.SessionCookie + "=s3cret; b=2", "a=1; b=2"},
		{abi.TokenCookie + "=s3cret;a=1", "a=1"},
		{"a=1;  __HOST-KUBE32-TOKEN = s3cret ", "a=1"},
		{"=" + abi.SessionCookie + "=s3cret; a=1", "a=1"}, // a nameless cookie
		{abi.TokenCookie, ""},
		{"kube32-token-other=1; my" + abi.TokenCookie + "=2", "kube32-token-other=1; my" + abi.TokenCookie + "=2"},
	}
	for _, c := range cases {
		got, removed := abi.WithoutReservedCookies(c.in)
		if got != c.want || removed != (c.in != c.want) {
			t.Errorf("WithoutReservedCookies(%q) = %q, %v; want %q", c.in, got, removed, c.want)
		}
	}
}

// TestPodsCannotSetReservedCookies: a Set-Cookie of a reserved name, in any
// spelling or as a nameless cookie whose value starts with one, is
// refused; any other cookie is not.
func TestPodsCannotSetReservedCookies(t *testing.T) {
	for value, want := range map[string]bool{
		abi.SessionCookie + "=x; Path=/; Secure":      true,
		abi.TokenCookie + "=x":                        true,
		" __host-Kube32-Token=x; HttpOnly":            true,
		"=" + abi.SessionCookie + "=x; Secure":        true,
		abi.SessionCookie:                             true,
		"session=x; Path=/":                           false,
		"other=" + abi.SessionCookie + "; Path=/":     false,
		"other=1; Comment=" + abi.SessionCookie + "=": false,
	} {
		if got := abi.SetsReservedCookie(value); got != want {
			t.Errorf("SetsReservedCookie(%q) = %v, want %v", value, got, want)
		}
	}
}
