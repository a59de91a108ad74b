package ingress

import (
	"context"
	"net/http"
	"time"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// stallWriter is the ResponseWriter of a request proxied to a pod on a
// worker: a client that takes no write of the answer within
// httplimit.WriteStallTimeout is dropped with a reset, rather than holding
// the proxy's goroutine for as long as it keeps the connection open
// (docs/serve.md, "Hostile clients"). The reset (httplimit.ResetOnClose,
// two system calls) is armed only for an answer that may reach the
// connection before the handler returns: one past heldBytes, or a stream.
type stallWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	ctx     context.Context
	written int
	armed   bool
}

// heldBytes is what net/http holds of an answer before it writes to the
// connection (its response buffer): writes within it never block.
const heldBytes = 2 << 10

// guardStalls returns w guarded, and the function that lifts the guard
// once the answer is proxied (net/http lifts the write deadline after
// each request too).
func guardStalls(w http.ResponseWriter, r *http.Request) (*stallWriter, func()) {
	s := &stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), ctx: r.Context()}
	return s, func() {
		_ = s.rc.SetWriteDeadline(time.Time{})
		if s.armed {
			httplimit.ResetOnClose(s.ctx, false)
		}
	}
}

// arm makes a failed write end the client's connection with a reset:
// net/http closes it as soon as a write fails, so the reset must be set
// before.
func (s *stallWriter) arm() {
	if !s.armed {
		s.armed = true
		httplimit.ResetOnClose(s.ctx, true)
	}
}

func (s *stallWriter) Write(b []byte) (int, error) {
	if s.written+len(b) > heldBytes {
		s.arm()
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(httplimit.WriteStallTimeout))
	n, err := s.ResponseWriter.Write(b)
	s.written += n
	return n, err
}

// Flush sends what the answer holds to the client, within the deadline of
// the last write.
func (s *stallWriter) Flush() error {
	s.arm()
	return s.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection through the
// guard.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// abortAnswer ends the client's connection of r, whose answer has begun
// and cannot be finished, with a reset: what the kernel still holds for a
// client that stopped reading is dropped at once rather than trickled to
// it (httplimit.ResetOnClose). The panic is net/http's way to abort an
// answer, as net/http/httputil.ReverseProxy does.
func abortAnswer(r *http.Request) {
	httplimit.ResetOnClose(r.Context(), true)
	panic(http.ErrAbortHandler)
}
