package k32http

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	k32 "github.com/kube32/kube32/sdk/go"
)

// closeRecorder is a request body that remembers being closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

func TestNewCallArgs(t *testing.T) {
	body := &closeRecorder{Reader: strings.NewReader("payload")}
	req, _ := http.NewRequest("POST", "http://user:pw@echo.other:8080/a%2Fb?q=1#frag", nil)
	req.Body = body
	req.Header.Set("X-Request-Id", "r1")
	a, err := newCallArgs(req, Transport{Grow: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case a.method != "POST", a.url != "http://echo.other:8080/a%2Fb?q=1":
		t.Errorf("method/url %s %q: user info and fragment must go, escapes stay", a.method, a.url)
	case string(a.body) != "payload", !body.closed:
		t.Errorf("body %q closed %v", a.body, body.closed)
	case a.header.Get("X-Request-Id") != "r1", a.header.Get("Authorization") != "Basic dXNlcjpwdw==":
		t.Errorf("header %v: want the request's plus Basic auth from the URL", a.header)
	case a.buffer != k32.DefaultCallBuffer, a.grow != 0, a.timeout != 0:
		t.Errorf("buffer %d grow %d timeout %v: want default buffer, no grow for POST, node's timeout", a.buffer, a.grow, a.timeout)
	}
	a.header.Set("X-Request-Id", "changed")
	if req.Header.Get("X-Request-Id") != "r1" {
		t.Error("the call's header must be a copy of the request's")
	}
}

func TestNewCallArgsGrowsOnlyReplayableRequests(t *testing.T) {
	tests := []struct {
		method string
		header http.Header
		grow   int
	}{
		{"GET", nil, 1 << 20},
		{"", nil, 1 << 20},
		{"PUT", nil, 1 << 20},
		{"DELETE", nil, 1 << 20},
		{"POST", nil, 0},
		{"PATCH", nil, 0},
		{"POST", http.Header{"Idempotency-Key": {"k1"}}, 1 << 20},
	}
	for _, tt := range tests {
		req := &http.Request{Method: tt.method, URL: &url.URL{Scheme: "http", Host: "echo", Path: "/"}, Header: tt.header}
		a, err := newCallArgs(req, Transport{Buffer: 1000, Grow: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if a.grow != tt.grow || a.buffer != 1000 {
			t.Errorf("%q %v: grow %d buffer %d, want grow %d buffer 1000", tt.method, tt.header, a.grow, a.buffer, tt.grow)
		}
		if tt.method == "" && a.method != "GET" {
			t.Errorf("empty method became %q, want GET", a.method)
		}
	}
}

func TestNewCallArgsRefusesURLs(t *testing.T) {
	for _, raw := range []string{"/relative", "ftp://echo/", "http:///nohost"} {
		u, _ := url.Parse(raw)
		body := &closeRecorder{Reader: strings.NewReader("x")}
		_, err := newCallArgs(&http.Request{Method: "GET", URL: u, Body: body}, Transport{})
		if err != errUnsupportedURL || !body.closed {
			t.Errorf("%q: error %v, body closed %v; want errUnsupportedURL and the body closed", raw, err, body.closed)
		}
	}
}

func TestCallTimeout(t *testing.T) {
	now := time.Now().Add(time.Hour) // ctx is not done in real time; callTimeout measures from now
	if d, err := callTimeout(context.Background(), now); d != 0 || err != nil {
		t.Errorf("no deadline: %v, %v; want 0 (the node's default)", d, err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(1500*time.Millisecond))
	defer cancel()
	if d, err := callTimeout(ctx, now); d != 1500*time.Millisecond || err != nil {
		t.Errorf("deadline: %v, %v; want what is left", d, err)
	}
	if _, err := callTimeout(ctx, now.Add(2*time.Second)); err != context.DeadlineExceeded {
		t.Errorf("past deadline: %v, want DeadlineExceeded", err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := callTimeout(cctx, now); err != context.Canceled {
		t.Errorf("cancelled: %v, want Canceled", err)
	}
}

func TestResponseHeader(t *testing.T) {
	got := map[string]bool{}
	host := map[string]string{"Content-Type": "text/plain", "Location": "/next", "X-Extra": "e", "X-Other": "o"}
	h := responseHeader(func(name string) string { got[name] = true; return host[name] }, []string{"x-extra", "Content-Type"})
	if h.Get("Content-Type") != "text/plain" || h.Get("Location") != "/next" || h.Get("X-Extra") != "e" || h.Get("X-Other") != "" || len(h) != 3 {
		t.Errorf("header %v: want the default fields and X-Extra the host has", h)
	}
	if len(got) != len(DefaultResponseHeader)+1 {
		t.Errorf("asked the host %d times, want each field once", len(got))
	}
}

func TestNewResponse(t *testing.T) {
	req, _ := http.NewRequest("GET", "http://echo/", nil)
	r := newResponse(req, 201, []byte("made"), http.Header{"Content-Type": {"text/plain"}})
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 201 || r.Status != "201 Created" || string(body) != "made" || r.ContentLength != 4 || r.Request != req || r.ProtoMajor != 1 {
		t.Errorf("response %+v body %q", r, body)
	}
	head, _ := http.NewRequest("HEAD", "http://echo/", nil)
	r = newResponse(head, 299, nil, http.Header{"Content-Length": {"1234"}})
	if r.ContentLength != 1234 || r.Body != http.NoBody || r.Status != "299 status code 299" {
		t.Errorf("HEAD response: length %d body %v status %q", r.ContentLength, r.Body, r.Status)
	}
}

func TestCallErrorWrapsErrno(t *testing.T) {
	var err error = &url.Error{Op: "Get", URL: "http://echo/", Err: &CallError{Method: "GET", URL: "http://echo/", Err: k32.ErrTimeout}}
	var ue *url.Error
	if !errors.Is(err, k32.ErrTimeout) || !errors.As(err, &ue) || !ue.Timeout() {
		t.Errorf("%v: want errors.Is ErrTimeout and url.Error.Timeout", err)
	}
	if (&CallError{Err: k32.ErrTooBig}).Timeout() {
		t.Error("ErrTooBig is no timeout")
	}
}

func TestTransportOffWasmReportsNotSupported(t *testing.T) {
	// Off WebAssembly there is no host: the call fails as a node without
	// k32_http_call would make it fail, through http.Client.
	client := &http.Client{Transport: Transport{}}
	_, err := client.Get("http://echo/ping")
	var ce *CallError
	if !errors.Is(err, k32.ErrNotSup) || !errors.As(err, &ce) || ce.URL != "http://echo/ping" {
		t.Errorf("error %v, want a CallError with k32.ErrNotSup", err)
	}
}
