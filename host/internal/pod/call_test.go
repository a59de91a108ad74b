package pod

import (
	"slices"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
)

// TestCallTimeoutBounds checks the timeout a Caller gets: 5 s for 0, as
// given up to 60 s, and 60 s above.
func TestCallTimeoutBounds(t *testing.T) {
	caller := &fakeCaller{}
	url := serve(t, startPod(t, onePage(t, "callbound"), func(c *Config) {
		c.Capabilities = []string{"SERVICE_CALL"}
		c.Caller = caller
	}))
	for path, want := range map[string]time.Duration{"/0": 5 * time.Second, "/1500": 1500 * time.Millisecond,
		"/60000": 60 * time.Second, "/70000": 60 * time.Second} {
		if got := get(t, url+path); got.status != 201 {
			t.Fatalf("%s: %d %s", path, got.status, got.body)
		}
		if caller.got.Timeout != want {
			t.Errorf("timeout_ms %s: Caller got %v, want %v", path[1:], caller.got.Timeout, want)
		}
	}
}

// TestCallChain checks the chain a call carries: the request's
// X-Kube32-Call-Chain, then the calling pod.
func TestCallChain(t *testing.T) {
	caller := &fakeCaller{}
	url := serve(t, startPod(t, onePage(t, "callbound"), func(c *Config) {
		c.Capabilities = []string{"SERVICE_CALL"}
		c.Caller = caller
	}))
	get(t, url+"/0")
	if want := []string{"default/probe"}; !slices.Equal(caller.got.Chain, want) {
		t.Errorf("chain %q, want %q", caller.got.Chain, want)
	}
	do(t, "GET", url+"/0", "", abi.HeaderCallChain, "a/x, b/y")
	if want := []string{"a/x", "b/y", "default/probe"}; !slices.Equal(caller.got.Chain, want) {
		t.Errorf("chain %q, want %q", caller.got.Chain, want)
	}
}

func TestParseCallChain(t *testing.T) {
	if got := parseCallChain("a/x,,b/y ", " c/z"); !slices.Equal(got, []string{"a/x", "b/y", "c/z"}) {
		t.Errorf("ParseCallChain = %q", got)
	}
	if got := FormatCallChain([]string{"a/x", "b/y"}); got != "a/x,b/y" {
		t.Errorf("FormatCallChain = %q", got)
	}
}
