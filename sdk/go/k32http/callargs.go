package k32http

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"time"

	k32 "github.com/kube32/kube32/sdk/go"
)

// callArgs are the arguments of the k32.Call that makes one request.
type callArgs struct {
	method  string
	url     string
	header  k32.Header
	body    []byte
	buffer  int           // response body buffer
	grow    int           // largest buffer of a retry; 0: none
	timeout time.Duration // 0: the node's default
}

// options returns the k32.CallOptions of a.
func (a callArgs) options() []k32.CallOption {
	opts := []k32.CallOption{k32.WithBuffer(a.buffer)}
	if a.grow > a.buffer {
		opts = append(opts, k32.WithGrow(a.grow))
	}
	if a.timeout > 0 {
		opts = append(opts, k32.WithTimeout(a.timeout))
	}
	return opts
}

// errUnsupportedURL is a request URL k32_http_call cannot carry.
var errUnsupportedURL = errors.New("k32http: request URL must be absolute http:// or https://")

// newCallArgs turns req into k32.Call arguments. It reads and closes
// req.Body, and fails without a call when req's context is already done.
func newCallArgs(req *http.Request, t Transport) (callArgs, error) {
	body, err := readBody(req)
	if err != nil {
		return callArgs{}, err
	}
	u := req.URL
	if u == nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return callArgs{}, errUnsupportedURL
	}
	a := callArgs{
		method: req.Method,
		// User info and fragment never travel; the host rejects the former.
		url:    u.Scheme + "://" + u.Host + u.RequestURI(),
		header: k32.Header(req.Header.Clone()),
		body:   body,
		buffer: t.Buffer,
	}
	if a.method == "" {
		a.method = http.MethodGet
	}
	if a.header == nil {
		a.header = k32.Header{}
	}
	if u.User != nil && a.header.Get("Authorization") == "" {
		// As http.Client does for a URL with user info.
		pw, _ := u.User.Password()
		a.header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)))
	}
	if a.buffer <= 0 {
		a.buffer = k32.DefaultCallBuffer
	}
	if replayable(req) {
		a.grow = t.Grow
	}
	a.timeout, err = callTimeout(req.Context(), time.Now())
	return a, err
}

// readBody reads all of req.Body and closes it.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// replayable reports whether req may safely be sent twice, as net/http
// decides before retrying.
func replayable(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	_, ok := req.Header["Idempotency-Key"]
	return ok
}

// callTimeout turns ctx's deadline into the call's timeout at now: 0 (the
// node's default) without one, ctx's error when it is already done.
func callTimeout(ctx context.Context, now time.Time) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	d, ok := ctx.Deadline()
	if !ok {
		return 0, nil
	}
	left := d.Sub(now)
	if left <= 0 {
		return 0, context.DeadlineExceeded
	}
	return left, nil
}
