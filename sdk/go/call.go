package k32

import (
	"time"
	"unsafe"
)

// DefaultCallBuffer is the response body buffer of a Call when no
// WithBuffer option says otherwise: 64 KiB.
const DefaultCallBuffer = 64 << 10

// CallResponse is the answer to a Call.
type CallResponse struct {
	// Status is the HTTP status code.
	Status int
	// Body is the response body, cut at the buffer size when Call
	// returned ErrTooBig.
	Body []byte
	// seq identifies the call, since the host keeps only the last call's
	// header.
	seq uint32
}

// callSeq counts calls, so Header can tell a stale response.
var callSeq uint32

// Header returns the response header field name (case-insensitive;
// repeated fields joined with ", "), or "" when the response has none. The
// host keeps the header of the last call only: after another Call, Header of
// an earlier response returns "".
func (r *CallResponse) Header(name string) string {
	if r.seq != callSeq {
		return ""
	}
	v, _ := getString(func(out unsafe.Pointer, cap uint32) int32 {
		return k32HTTPHeader(stringPtr(name), uint32(len(name)), out, cap)
	}, 128)
	return v
}

// CallOption changes how Call works.
type CallOption func(*callOptions)

type callOptions struct {
	buffer  int           // first response buffer size
	grow    int           // largest buffer a retry may use; 0: no retry
	timeout time.Duration // 0: the node's default (5 s)
}

// WithBuffer sets the size of the response body buffer (default
// DefaultCallBuffer). A larger body makes Call return ErrTooBig with the
// first n bytes, unless WithGrow allows a retry.
func WithBuffer(n int) CallOption {
	return func(o *callOptions) { o.buffer = n }
}

// WithGrow lets Call repeat the request with a bigger buffer, up to max
// bytes, when the body did not fit. The request is sent again, so allow it
// only for requests that may safely run twice (GET, PUT, …).
func WithGrow(max int) CallOption {
	return func(o *callOptions) { o.grow = max }
}

// WithTimeout bounds the whole call: name lookup, connection and response.
// The node caps it at 60 s; 0 means its default of 5 s.
func WithTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.timeout = d }
}

// Call makes a synchronous HTTP request through k32_http_call to a Service
// ("http://echo/ping", "http://echo.other:8080/x") or a host outside the
// cluster ("https://example.com/"). The container needs the SERVICE_CALL
// capability. header may be nil. A failure is an Errno: ErrPerm, ErrTimeout,
// ErrConnRefused, …; with ErrTooBig the CallResponse holds the status and the
// first part of the body.
func Call(method, url string, header Header, body []byte, opts ...CallOption) (*CallResponse, error) {
	o := callOptions{buffer: DefaultCallBuffer}
	for _, opt := range opts {
		opt(&o)
	}
	if method == "" {
		method = "GET"
	}
	lines, err := formatHeaderLines(header)
	if err != nil {
		return nil, err
	}
	timeoutMs := o.timeout.Milliseconds()
	if timeoutMs < 0 || o.timeout > 0 && timeoutMs == 0 {
		timeoutMs = 1 // 0 would mean the default, far longer than asked for
	}
	if timeoutMs > 1<<32-1 {
		timeoutMs = 1<<32 - 1
	}
	size := o.buffer
	if size < 0 {
		size = 0
	}
	for {
		resp := make([]byte, size)
		var n uint32
		callSeq++
		ret := k32HTTPCall(stringPtr(method), uint32(len(method)), stringPtr(url), uint32(len(url)),
			stringPtr(lines), uint32(len(lines)), bytesPtr(body), uint32(len(body)),
			bytesPtr(resp), uint32(len(resp)), unsafe.Pointer(&n), uint32(timeoutMs))
		if int(n) > len(resp) {
			n = uint32(len(resp)) // the host never copies more than cap; be safe anyway
		}
		if ret >= 0 {
			return &CallResponse{Status: int(ret), Body: resp[:n], seq: callSeq}, nil
		}
		if Errno(ret) != ErrTooBig {
			return nil, Errno(ret)
		}
		r := &CallResponse{Status: int(k32HTTPStatus()), Body: resp[:n], seq: callSeq}
		next := nextCallBuffer(size, o.grow, r.Header("Content-Length"))
		if next <= size {
			return r, ErrTooBig
		}
		size = next
	}
}

// nextCallBuffer picks the buffer for a retry after ErrTooBig: the size the
// response's Content-Length announced, else twice the last size; at most
// max. A result not above last means "do not retry".
func nextCallBuffer(last, max int, contentLength string) int {
	if max <= last {
		return last
	}
	next := last * 2
	if next < 1024 {
		next = 1024
	}
	if cl, ok := parseContentLength(contentLength); ok && cl > last {
		next = cl
	}
	if next > max {
		next = max
	}
	return next
}

// parseContentLength parses a decimal Content-Length, refusing anything
// that is not a plain non-negative number that fits an int.
func parseContentLength(s string) (int, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Get is Call("GET", url, nil, nil, opts...).
func Get(url string, opts ...CallOption) (*CallResponse, error) {
	return Call("GET", url, nil, nil, opts...)
}
