package ingress

import (
	"net/http"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// stallWriter is the ResponseWriter of a request proxied to a pod on a
// worker: a client that takes no write of the answer within
// httplimit.WriteStallTimeout is dropped with a reset (httplimit.Stall),
// rather than holding the proxy's goroutine for as long as it keeps the
// connection open (docs/serve.md, "Hostile clients").
type stallWriter struct {
	http.ResponseWriter
	stall httplimit.Stall
}

// guardStalls returns w guarded, and the function that lifts the guard
// once the answer is proxied (net/http lifts the write deadline after
// each request too).
func guardStalls(w http.ResponseWriter, r *http.Request) (*stallWriter, func()) {
	s := &stallWriter{ResponseWriter: w}
	s.stall.Init(w, r)
	return s, func() { s.stall.Lift(0) }
}

func (s *stallWriter) Write(b []byte) (int, error) {
	s.stall.Arm(httplimit.WriteStallTimeout)
	return s.ResponseWriter.Write(b)
}

// Flush sends what the answer holds to the client, which must take it
// within httplimit.WriteStallTimeout too.
func (s *stallWriter) Flush() error {
	s.stall.Arm(httplimit.WriteStallTimeout)
	return s.stall.Flush()
}

// Unwrap lets http.ResponseController reach the connection through the
// guard.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// abortAnswer ends the client's connection of r, whose answer has begun
// and cannot be finished. The panic is net/http's way to abort an answer,
// as net/http/httputil.ReverseProxy does; a client that stopped taking
// writes was dropped with a reset already, when its write failed.
func abortAnswer() {
	panic(http.ErrAbortHandler)
}
