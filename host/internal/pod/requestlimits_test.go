package pod

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/channel"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// respflood is internal/testkit/testpods/c/respflood.c, which grows its own buffer.
func respflood(t testing.TB) []byte { return testpods.Fixture(t, "respflood", 65536) }

// k32_http_call takes a method, URL and headers up to abi.CallHeadBytesMax
// together; past it it returns K32_ERR_TOOBIG and the Caller never sees the
// call, so the node copies nothing out of the pod for it. A body is bounded
// by the pod's memory alone: one larger than a pod's port takes still
// reaches the Caller (a host outside may take it).
func TestCallArgumentsAreBoundedBeforeTheyAreCopied(t *testing.T) {
	caller := &fakeCaller{}
	url := serve(t, startPod(t, respflood(t), func(c *Config) {
		c.Capabilities = []string{"SERVICE_CALL"}
		c.Caller = caller
	}))
	const line = len("POST") + len("http://flood/") // what respflood.c calls
	for _, tc := range []struct {
		headers, body int
		want          int
	}{
		{abi.CallHeadBytesMax - line, 0, 201},
		{abi.CallHeadBytesMax - line + 1, 0, int(abi.ErrTooBig)},
		{0, 1 << 20, 201},
		{0, 1<<20 + 1, 201},
	} {
		caller.got = Call{}
		r := get(t, fmt.Sprintf("%s/call?%d,%d", url, tc.headers, tc.body))
		if want := fmt.Sprintf("rc=%d\n", tc.want); r.status != 200 || r.body != want {
			t.Fatalf("headers %d, body %d: %d %q, want %q", tc.headers, tc.body, r.status, r.body, want)
		}
		called := caller.got.Method != ""
		if called != (tc.want == 201) {
			t.Fatalf("headers %d, body %d: the Caller got the call: %v", tc.headers, tc.body, called)
		}
		if called && (len(caller.got.Body) != tc.body || tc.headers > 0 && len(caller.got.Header.Get("X-A")) != tc.headers-len("X-A: \r\n")) {
			t.Fatalf("headers %d, body %d: the Caller got a body of %d and X-A of %d bytes", tc.headers, tc.body,
				len(caller.got.Body), len(caller.got.Header.Get("X-A")))
		}
	}
}

// k32_publish takes a payload up to abi.ChannelMessageMax; past it the pod
// gets K32_ERR_TOOBIG (from a real channel hub).
func TestPublishPayloadIsBounded(t *testing.T) {
	url := serve(t, startPod(t, respflood(t), func(c *Config) {
		c.Capabilities = []string{"CHANNEL_IPC"}
		c.Publisher = channel.New(channel.Options{})
	}))
	for n, want := range map[int]abi.Errno{abi.ChannelMessageMax: 0, abi.ChannelMessageMax + 1: abi.ErrTooBig, 4 << 20: abi.ErrTooBig} {
		if r := get(t, fmt.Sprintf("%s/publish?%d", url, n)); r.body != fmt.Sprintf("rc=%d\n", want) {
			t.Fatalf("publish %d bytes: %d %q, want rc=%d", n, r.status, r.body, want)
		}
	}
}

// A k32_log line of megabytes is kept as its first abi.LogLineMax bytes.
func TestLogLineOfMegabytesIsCut(t *testing.T) {
	p := startPod(t, respflood(t), nil)
	if r := get(t, serve(t, p)+"/log?4194304"); r.body != "rc=0\n" {
		t.Fatalf("/log: %d %q", r.status, r.body)
	}
	var last Line
	for _, l := range p.Logs() {
		if l.Stream == "k32" && strings.HasPrefix(l.Text, "xxx") {
			last = l
		}
	}
	if len(last.Text) != abi.LogLineMax {
		t.Fatalf("the logged line has %d bytes, want %d", len(last.Text), abi.LogLineMax)
	}
}

// One write of megabytes to stdout becomes lines of abi.LogLineMax, and the
// pod's line buffer keeps no more than a few lines' worth afterwards.
func TestHugeStdoutWriteKeepsNoBigBuffer(t *testing.T) {
	p := startPod(t, respflood(t), nil)
	const n = 4 << 20
	if r := get(t, fmt.Sprintf("%s/stdout?%d", serve(t, p), n)); r.body != fmt.Sprintf("rc=%d\n", n) {
		t.Fatalf("/stdout: %d %q", r.status, r.body)
	}
	lines := 0
	for _, l := range p.Logs() {
		if l.Stream == "stdout" {
			if len(l.Text) != abi.LogLineMax {
				t.Fatalf("a stdout line of %d bytes, want %d", len(l.Text), abi.LogLineMax)
			}
			lines++
		}
	}
	if lines != n/abi.LogLineMax {
		t.Fatalf("%d stdout lines, want %d", lines, n/abi.LogLineMax)
	}
	p.stdout.mu.Lock()
	kept := p.stdout.buf.Cap()
	p.stdout.mu.Unlock()
	if kept > 4*abi.LogLineMax {
		t.Fatalf("the stdout line buffer keeps %d bytes after the write, want at most %d", kept, 4*abi.LogLineMax)
	}
}
