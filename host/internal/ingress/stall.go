package ingress

import (
	"net/http"
	"time"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// stallWriter is the ResponseWriter of a request proxied to a pod on a
// worker: a client that takes no write of the answer within
// httplimit.WriteStallTimeout is dropped with a reset, rather than holding
// the proxy's goroutine for as long as it keeps the connection open
// (docs/serve.md, "Hostile clients").
type stallWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

// guardStalls returns w guarded, and the function that lifts the guard
// once the answer is proxied (net/http lifts the write deadline after
// each request too). net/http closes the connection as soon as a write
// fails, so the reset is armed for the whole answer
// (httplimit.ResetOnClose costs no system call until the close).
func guardStalls(w http.ResponseWriter, r *http.Request) (*stallWriter, func()) {
	s := &stallWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
	httplimit.ResetOnClose(r.Context(), true)
	return s, func() {
		_ = s.rc.SetWriteDeadline(time.Time{})
		httplimit.ResetOnClose(r.Context(), false)
	}
}

func (s *stallWriter) Write(b []byte) (int, error) {
	_ = s.rc.SetWriteDeadline(time.Now().Add(httplimit.WriteStallTimeout))
	return s.ResponseWriter.Write(b)
}

// Flush sends what the answer holds to the client, within the deadline of
// the last write.
func (s *stallWriter) Flush() error { return s.rc.Flush() }

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
