package k32http

import k32 "github.com/kube32/kube32/sdk/go"

// CallError is a request that k32_http_call failed: Err is the k32.Errno
// (k32.ErrTimeout, k32.ErrConnRefused, k32.ErrTooBig, …).
type CallError struct {
	Method string
	URL    string
	Err    error
}

// Error says which request failed and why.
func (e *CallError) Error() string {
	return "k32http: " + e.Method + " " + e.URL + ": " + e.Err.Error()
}

// Unwrap returns Err, for errors.Is(err, k32.ErrTimeout).
func (e *CallError) Unwrap() error { return e.Err }

// Timeout reports whether the call ran out of time, as net.Error does, so
// callers that test url.Error.Timeout see it.
func (e *CallError) Timeout() bool { return e.Err == k32.ErrTimeout }
