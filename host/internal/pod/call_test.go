package pod

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
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

// blockingCaller waits for its call's context to end and reports its error.
type blockingCaller struct{ ended chan error }

func (b *blockingCaller) HTTPCall(ctx context.Context, _ Call) (CallResult, error) {
	<-ctx.Done()
	b.ended <- ctx.Err()
	return CallResult{}, ctx.Err()
}

// A k32_http_call in progress ends with its callback: once the callback's
// deadline passes, the call's context ends, long before the call's own
// 60 s (docs/calls.md, "Timeouts").
func TestCallEndsAtItsCallbacksDeadline(t *testing.T) {
	caller := &blockingCaller{ended: make(chan error, 1)}
	url := serve(t, startPod(t, onePage(t, "callbound"), func(c *Config) {
		c.Capabilities = []string{"SERVICE_CALL"}
		c.Caller = caller
		c.HandlerTimeout = 500 * time.Millisecond
	}))
	answered := make(chan response, 1)
	go func() { answered <- get(t, url+"/60000") }()
	select {
	case err := <-caller.ended:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the call's context ended with %v, want the callback's deadline", err)
		}
	case <-time.After(30 * time.Second): // a bound for a hang, not a measure
		t.Fatal("the call ran on past its callback's deadline")
	}
	// The node stops the instance at its deadline, or the guest, told
	// its call failed, returns first (callbound answers 500 then).
	res := <-answered
	if !(res.status == http.StatusGatewayTimeout && strings.Contains(res.body, "k32_handle exceeded 500ms")) &&
		res.status != http.StatusInternalServerError {
		t.Fatalf("%d %q, want 504 (k32_handle exceeded 500ms) or the guest's 500", res.status, res.body)
	}
}

// The header lines a guest gives k32_http_call: "\r\n" or "\n" ends a
// line, blank lines are skipped, values are trimmed, repeated names add
// values; a line without ':', a name that is no token, or a CR (other than
// the one before a line's "\n") or NUL in a value refuses the whole
// (K32_ERR_INVAL, docs/abi.md).
func TestCallHeaderLines(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want http.Header // nil: refused
	}{
		{"", http.Header{}},
		{"\r\n\r\n\n", http.Header{}},
		{"X-A: 1\r\n", http.Header{"X-A": {"1"}}},
		{"x-a:  1  \r\nX-A: 2\nb: 3", http.Header{"X-A": {"1", "2"}, "B": {"3"}}},
		{"X-A: 1\r", nil},       // a CR that ends no line
		{"X-A: 1\r\r\n", nil},   // one CR too many
		{"X-A: a\rb\r\n", nil},  // a CR inside
		{"X-A: a\x00\r\n", nil}, // a NUL
		{"no colon\r\n", nil},
		{"bad name: v\r\n", nil},
		{": v\r\n", nil},
	} {
		got, ok := parseHeaderLines(tt.raw)
		if ok != (tt.want != nil) || (ok && !maps.EqualFunc(got, tt.want, slices.Equal)) {
			t.Errorf("parseHeaderLines(%q) = %v, %v; want %v", tt.raw, got, ok, tt.want)
		}
	}
}
