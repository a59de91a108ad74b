package pod

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// startPod starts a pod of module; change edits the config first.
func startPod(t testing.TB, module []byte, change func(*Config)) *Pod {
	t.Helper()
	cfg := Config{Namespace: "default", Name: "probe", Module: module, HandlerTimeout: 5 * time.Second}
	if change != nil {
		change(&cfg)
	}
	p := New(cfg)
	t.Cleanup(p.Stop)
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return p
}

// serve serves p on 127.0.0.1 and returns its base URL.
func serve(t testing.TB, p http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// client does not add Accept-Encoding nor decompress, so the tests see the bytes sent.
var client = &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 30 * time.Second}

type response struct {
	status int
	header http.Header
	body   string
}

// do sends one request; header is "Name", "value" pairs.
func do(t testing.TB, method, url, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return response{res.StatusCode, res.Header, string(b)}
}

// get is do with GET and no body.
func get(t testing.TB, url string, header ...string) response {
	t.Helper()
	return do(t, http.MethodGet, url, "", header...)
}

// lines collects log lines given to Config.Log.
type lines struct {
	mu sync.Mutex
	l  []Line
}

func (c *lines) add(l Line) { c.mu.Lock(); c.l = append(c.l, l); c.mu.Unlock() }

func (c *lines) has(stream, text string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.l {
		if l.Stream == stream && strings.Contains(l.Text, text) {
			return true
		}
	}
	return false
}

// logged reports whether the pod's ring buffer holds a line containing text.
func logged(p *Pod, stream, text string) bool {
	for _, l := range p.Logs() {
		if l.Stream == stream && strings.Contains(l.Text, text) {
			return true
		}
	}
	return false
}

// wantLines fails unless body holds every line.
func wantLines(t testing.TB, body string, want ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		have[l] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("response lacks line %q; got:\n%s", w, body)
		}
	}
}
