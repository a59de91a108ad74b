package k32http

import (
	"net/http"

	k32 "github.com/kube32/kube32/sdk/go"
)

// Transport is an http.RoundTripper over k32_http_call, so a pod can use
// net/http's client, and libraries built on it, to call Services in the
// cluster and hosts outside it:
//
//	client := &http.Client{Transport: k32http.Transport{}}
//	resp, err := client.Get("http://echo/ping")
//
// The container needs the SERVICE_CALL capability. The node makes the
// request and follows its rules (host resolution, header filtering,
// NetworkPolicy); the differences from net/http's Transport come from
// k32_http_call:
//
//   - The whole response body must fit the buffer (Buffer, or
//     k32.DefaultCallBuffer); a larger one fails the request with
//     k32.ErrTooBig, unless Grow lets an idempotent request be repeated with a
//     bigger buffer.
//   - The call blocks the pod until it ends: the request context's deadline
//     becomes the call's timeout (the node caps it at 60 s, and uses 5 s
//     when the context has none), but cancelling the context cannot end a
//     call that has started. Prefer such a deadline to http.Client's
//     Timeout, whose error replaces the call's and its k32.Errno.
//   - The host hands out response header fields one name at a time, so the
//     Response holds those of DefaultResponseHeader and Header only, each
//     with its values joined into one.
//   - req.Host and trailers are not sent: the host takes Host from the URL.
//
// Failures of the call are *CallError values wrapping a k32.Errno (test with
// errors.Is(err, k32.ErrTimeout), …); http.Client wraps them in *url.Error.
// The zero Transport is ready to use, and a Transport value may be shared.
type Transport struct {
	// Buffer is the size of the response body buffer; 0 means
	// k32.DefaultCallBuffer (64 KiB).
	Buffer int
	// Grow, when above the buffer size, lets RoundTrip repeat an
	// idempotent request (GET, HEAD, OPTIONS, TRACE, PUT, DELETE, or one
	// with an Idempotency-Key header) with a bigger buffer, up to Grow
	// bytes, when its body did not fit (see k32.WithGrow).
	Grow int
	// Header names response header fields to fetch besides those of
	// DefaultResponseHeader.
	Header []string
}

var _ http.RoundTripper = Transport{}

// RoundTrip implements http.RoundTripper: it makes req with one
// k32_http_call. It closes req.Body, as the interface requires.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	args, err := newCallArgs(req, t)
	if err != nil {
		return nil, err
	}
	res, err := k32.Call(args.method, args.url, args.header, args.body, args.options()...)
	if err != nil {
		return nil, &CallError{Method: args.method, URL: args.url, Err: err}
	}
	return newResponse(req, res.Status, res.Body, responseHeader(res.Header, t.Header)), nil
}
