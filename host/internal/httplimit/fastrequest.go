package httplimit

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"github.com/kube32/kube32/abi"
)

// methodName is a request's method as a string, the common ones without
// an allocation.
func methodName(m []byte) string {
	switch string(m) {
	case http.MethodGet:
		return http.MethodGet
	case http.MethodPost:
		return http.MethodPost
	case http.MethodHead:
		return http.MethodHead
	case http.MethodPut:
		return http.MethodPut
	case http.MethodDelete:
		return http.MethodDelete
	case http.MethodPatch:
		return http.MethodPatch
	case http.MethodOptions:
		return http.MethodOptions
	}
	return string(m)
}

// parseRequestURI parses a request's target as net/http does.
func parseRequestURI(s string) (*url.URL, error) { return url.ParseRequestURI(s) }

// commonHeaders are header names a request usually carries, in the
// canonical form net/http gives every name, so that headerKey finds them
// without an allocation.
var commonHeaders = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"Accept", "Accept-Encoding", "Accept-Language", "Authorization", "Cache-Control",
		"Connection", "Content-Length", "Content-Type", "Cookie", "Expect", "Host", "If-Modified-Since",
		"If-None-Match", "Origin", "Pragma", "Range", "Referer", "Transfer-Encoding", "Upgrade", "User-Agent",
		"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip", "X-Request-Id",
		"Traceparent", "Tracestate",
		abi.HeaderPod, abi.HeaderCallChain} {
		m[http.CanonicalHeaderKey(k)] = http.CanonicalHeaderKey(k)
	}
	return m
}()

// headerKey is a header name as net/http keys it.
func headerKey(k []byte) string {
	if s, ok := commonHeaders[string(k)]; ok {
		return s
	}
	return http.CanonicalHeaderKey(string(k))
}

// context is the context of the connection's requests on a FastServer: a
// child of base that carries the connection (Stream, ResetOnClose) and
// ends when the client leaves during a streamed answer (watchForLeave),
// made once per connection. Only the connection's own goroutine calls it.
func (tc *conn) context(base context.Context) context.Context {
	if tc.ctx == nil {
		ctx, leave := context.WithCancel(base)
		tc.ctx, tc.leave = context.WithValue(ctx, connKey{}, tc), leave
		tc.remote = tc.RemoteAddr().String()
	}
	return tc.ctx
}

// framedTwice reports whether a request's raw head has both a
// Content-Length and a Transfer-Encoding field. It reads the raw head:
// fasthttp drops the Transfer-Encoding of a chunked body that was empty,
// which a request smuggled behind it makes.
func framedTwice(head []byte) bool {
	var length, coding bool
	for line := range bytes.Lines(head) {
		name, _, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		name = bytes.TrimSpace(name)
		length = length || bytes.EqualFold(name, []byte("Content-Length"))
		coding = coding || bytes.EqualFold(name, []byte("Transfer-Encoding"))
	}
	return length && coding
}

// appendCookieLines appends the values of a raw head's Cookie fields, one
// per line as the client sent them: fasthttp gives a request's cookies
// joined in one field, net/http gives the lines apart.
func appendCookieLines(values []string, head []byte) []string {
	for line := range bytes.Lines(head) {
		name, value, ok := bytes.Cut(line, []byte{':'})
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Cookie")) {
			values = append(values, string(bytes.TrimSpace(value)))
		}
	}
	return values
}
