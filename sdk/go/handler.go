package k32

import "io"

// A Request is the HTTP request a pod is serving: from the Ingress, from a
// Service call of another pod, or from the node's pod port.
type Request struct {
	// Method is the request method, e.g. "GET".
	Method string
	// Path is the request path as received, in its escaped form, without
	// the query ("/items/a%2Fb").
	Path string
	// RawQuery is the query without '?', still encoded ("q=1&r=2"); "" when
	// the request has none.
	RawQuery string
	// Header holds the request's header fields, keys in canonical form.
	Header Header
	// Body reads the request body from the host as the handler asks for
	// it; it reports io.EOF at the end. It is valid only during the call of
	// the handler.
	Body io.Reader
}

// RequestURI returns the path and, when there is one, '?' and the query, as
// they appeared on the request line.
func (r *Request) RequestURI() string {
	if r.RawQuery == "" {
		return r.Path
	}
	return r.Path + "?" + r.RawQuery
}

// A ResponseWriter builds the response of a Handler, as http.ResponseWriter
// does.
type ResponseWriter interface {
	// Header returns the header that WriteHeader or the first Write sends.
	// Changing it afterwards has no effect.
	Header() Header
	// WriteHeader sets the status code (100..599) and hands the header to
	// the host. Only the first call counts.
	WriteHeader(statusCode int)
	// Write sends body bytes, after WriteHeader(200) when the handler has
	// not called WriteHeader.
	Write(p []byte) (int, error)
}

// A Handler serves the HTTP requests of a pod.
type Handler interface {
	ServeK32(w ResponseWriter, r *Request)
}

// HandlerFunc lets an ordinary function serve as a Handler.
type HandlerFunc func(w ResponseWriter, r *Request)

// ServeK32 calls f(w, r).
func (f HandlerFunc) ServeK32(w ResponseWriter, r *Request) { f(w, r) }

// handler is the pod's Handler, set by Handle from an init function. A pod
// instance serves one callback at a time, so it needs no lock.
var handler Handler

// Handle makes h serve every HTTP request of the pod. Call it from an init
// function: a Go pod is a WASI reactor, whose main function never runs. A
// later call replaces the handler of an earlier one. Without a handler the
// pod answers 404 to every request.
func Handle(h Handler) {
	if h == nil {
		panic("k32: Handle(nil)")
	}
	handler = h
}

// HandleFunc makes f serve every HTTP request of the pod; see Handle.
func HandleFunc(f func(w ResponseWriter, r *Request)) {
	if f == nil {
		panic("k32: HandleFunc(nil)")
	}
	Handle(HandlerFunc(f))
}

// Error replies with the status code and msg as a plain-text body, as
// http.Error does. The handler should not write to w afterwards.
func Error(w ResponseWriter, msg string, code int) {
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	io.WriteString(w, msg+"\n")
}

// NotFound replies "404 page not found", as http.NotFound does.
func NotFound(w ResponseWriter, r *Request) { Error(w, "404 page not found", 404) }
