package httplimit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// classed answers /api and /public as streams of that kind, held until
// the client goes, /once as an API stream that ends after one line, and
// anything else with "ok".
var classed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	kind := map[string]StreamKind{"/api": APIStream, "/public": PublicStream, "/once": APIStream}
	k, ok := kind[r.URL.Path]
	if !ok {
		io.WriteString(w, "ok")
		return
	}
	if err := Stream(r, k); err != nil {
		Refuse(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, ": streaming\n")
	w.(http.Flusher).Flush()
	if r.URL.Path != "/once" {
		<-r.Context().Done()
	}
})

// dialFrom is a raw connection to addr from the loopback address from.
func dialFrom(t *testing.T, from, addr string) *client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{Conn: c, r: bufio.NewReader(c)}
}

// open sends GET path on c and returns the status of the answer's head,
// leaving a stream open; a refusal must carry Retry-After.
func (c *client) open(t *testing.T, path string) int {
	t.Helper()
	resp, err := c.get(t, path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode == 200 {
		if l := readLine(t, bufio.NewReader(resp.Body)); l != ": streaming" {
			t.Fatalf("GET %s: %q", path, l)
		}
		return 200
	}
	io.ReadAll(resp.Body)
	if got, want := resp.Header.Get("Retry-After"), strconv.Itoa(int(StreamRetryAfter.Seconds())); got != want {
		t.Errorf("GET %s: %s with Retry-After %q, want %q", path, resp.Status, got, want)
	}
	return resp.StatusCode
}

func TestStreamsNeverTakeTheSlotsKeptForShortRequests(t *testing.T) {
	conns := NewConns(8)
	if conns.MaxStreams() != 6 {
		t.Fatalf("MaxStreams of 8 connections = %d, want 6 (%d%% kept for short requests)", conns.MaxStreams(), ShortReservePercent)
	}
	addr := serve(t, conns, Limits{}, classed)
	for i := range conns.MaxStreams() {
		if got := dial(t, addr).open(t, "/api"); got != 200 {
			t.Fatalf("stream %d: %d", i, got)
		}
	}
	refused := dial(t, addr)
	if got := refused.open(t, "/api"); got != http.StatusServiceUnavailable {
		t.Fatalf("a stream past the stream class: %d, want 503", got)
	}
	refused.mustGet(t, "/") // a refused stream's connection stays, short
	// The budget is spent (6 streams, 2 short): new short requests take
	// the idle slots, as ever.
	dial(t, addr).mustGet(t, "/")
	for i := range 3 {
		dial(t, addr).mustGet(t, "/")
		if n := conns.Open(); n > 8 {
			t.Fatalf("short request %d: %d connections open, the cap is 8", i, n)
		}
	}
	if all, _ := conns.Streams(); all != 6 {
		t.Errorf("%d streams held, want 6", all)
	}
}

func TestOneClientHoldsAtMostMaxPublicStreamsPerClient(t *testing.T) {
	conns := NewConns(4 * MaxPublicStreamsPerClient)
	addr := serve(t, conns, Limits{}, classed)
	var first *client
	for i := range MaxPublicStreamsPerClient {
		c := dialFrom(t, "127.0.0.1", addr)
		if got := c.open(t, "/public"); got != 200 {
			t.Fatalf("public stream %d: %d", i, got)
		}
		if first == nil {
			first = c
		}
	}
	if got := dialFrom(t, "127.0.0.1", addr).open(t, "/public"); got != http.StatusTooManyRequests {
		t.Fatalf("a public stream past the client's cap: %d, want 429", got)
	}
	// Other clients, and the client's own API streams and short requests,
	// are not held back.
	if got := dialFrom(t, "127.0.0.2", addr).open(t, "/public"); got != 200 {
		t.Errorf("another client's public stream: %d", got)
	}
	if got := dialFrom(t, "127.0.0.1", addr).open(t, "/api"); got != 200 {
		t.Errorf("the client's API stream: %d", got)
	}
	dialFrom(t, "127.0.0.1", addr).mustGet(t, "/")
	// A stream that ends gives its place back.
	first.Close()
	testenv.Eventually(t, "the closed stream's place to be free", func() bool {
		_, public := conns.Streams()
		return public == MaxPublicStreamsPerClient
	})
	if got := dialFrom(t, "127.0.0.1", addr).open(t, "/public"); got != 200 {
		t.Errorf("a public stream once one ended: %d", got)
	}
}

func TestPublicStreamsLeaveRoomForAPIStreams(t *testing.T) {
	conns := NewConns(8)
	if conns.MaxPublicStreams() != 4 {
		t.Fatalf("MaxPublicStreams of 8 connections = %d, want 4 (%d%%)", conns.MaxPublicStreams(), PublicStreamsPercent)
	}
	addr := serve(t, conns, Limits{}, classed)
	for i := range 4 {
		if got := dialFrom(t, "127.0.0."+strconv.Itoa(10+i), addr).open(t, "/public"); got != 200 {
			t.Fatalf("public stream %d: %d", i, got)
		}
	}
	if got := dialFrom(t, "127.0.0.20", addr).open(t, "/public"); got != http.StatusServiceUnavailable {
		t.Fatalf("a public stream past the public share: %d, want 503", got)
	}
	for i := range 2 {
		if got := dial(t, addr).open(t, "/api"); got != 200 {
			t.Fatalf("API stream %d with the public share full: %d", i, got)
		}
	}
}

func TestAStreamThatEndsLeavesItsConnectionShort(t *testing.T) {
	conns := NewConns(8)
	addr := serve(t, conns, Limits{}, classed)
	c := dial(t, addr)
	for range 2 * conns.MaxStreams() { // more than the class holds: each gives its place back
		resp, err := c.get(t, "/once")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET /once: %v %v", resp, err)
		}
		io.ReadAll(resp.Body)
	}
	c.mustGet(t, "/")
	if all, _ := conns.Streams(); all != 0 {
		t.Errorf("%d streams counted after every stream ended", all)
	}
}
