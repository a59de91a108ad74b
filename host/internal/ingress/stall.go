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
// each request too).
func guardStalls(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	rc := http.NewResponseController(w)
	httplimit.ResetOnClose(r.Context(), true)
	return stallWriter{ResponseWriter: w, rc: rc}, func() {
		_ = rc.SetWriteDeadline(time.Time{})
		httplimit.ResetOnClose(r.Context(), false)
	}
}

func (s stallWriter) Write(b []byte) (int, error) {
	_ = s.rc.SetWriteDeadline(time.Now().Add(httplimit.WriteStallTimeout))
	return s.ResponseWriter.Write(b)
}

// Unwrap lets the proxy flush through the guard (http.ResponseController).
func (s stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
