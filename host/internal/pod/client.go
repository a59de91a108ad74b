package pod

import (
	"errors"
	"net/http"
	"time"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// clientWriter is a k32_handle callback's way to its client. A client that
// does not read costs the pod at most one callback deadline (HandlerTimeout)
// of waiting in all, which does not count against the pod's own deadline
// (holdDeadline); past it the connection is dropped with a reset, the write
// returns an error (K32_ERR_IO to the guest), later writes are discarded at
// once, and the callback ends as the guest decides: no 504, no restart
// (docs/serve.md, "Hostile clients").
type clientWriter struct {
	http.ResponseWriter
	pod       *Pod
	req       *http.Request
	rc        http.ResponseController
	deadlines bool          // the writer has a connection whose deadlines can be set
	left      time.Duration // of the client's time to take the answer
	gone      error         // the write that dropped the client failed with it
	armed     bool          // the connection resets if it closes
}

// errClientGone is what writes return once the client has been dropped.
var errClientGone = errors.New("the client did not take the response in time")

// init readies c, which handleCall holds, for a callback of p.
func (c *clientWriter) init(p *Pod, w http.ResponseWriter, r *http.Request) {
	*c = clientWriter{ResponseWriter: w, pod: p, req: r, rc: *http.NewResponseController(w),
		deadlines: hasDeadlines(w), left: p.timeout}
}

// hasDeadlines reports whether w, or a writer it wraps, can set its
// connection's deadlines, as http.ResponseController looks for them. An
// in-process call's writer cannot (its writes never block), and asking it
// would cost an error value each time.
func hasDeadlines(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case interface{ SetWriteDeadline(time.Time) error }:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}

func (c *clientWriter) Write(b []byte) (int, error) {
	if c.gone != nil {
		return 0, errClientGone
	}
	if c.left <= 0 {
		c.drop(errClientGone)
		return 0, errClientGone
	}
	held := c.pod.holdDeadline()
	defer c.pod.resumeDeadline(held)
	if c.deadlines { // in-process writes never block
		// net/http closes the connection at once when a write fails:
		// make that close a reset, which drops what the kernel still
		// holds for the client (httplimit.ResetOnClose costs no system
		// call until the close).
		if !c.armed {
			c.armed = true
			httplimit.ResetOnClose(c.req.Context(), true)
		}
		_ = c.rc.SetWriteDeadline(time.Now().Add(c.left))
	}
	start := time.Now()
	n, err := c.ResponseWriter.Write(b)
	c.left -= time.Since(start)
	if err != nil && !errors.Is(err, http.ErrBodyNotAllowed) {
		c.drop(err)
	}
	return n, err
}

// drop gives up on the client. net/http has closed its connection already
// if a write failed, with a reset (Write armed it); otherwise it closes it
// once the callback is over, with a reset, when the buffered rest fails.
func (c *clientWriter) drop(err error) {
	c.gone = err
	if c.deadlines {
		if !c.armed {
			c.armed = true
			httplimit.ResetOnClose(c.req.Context(), true)
		}
		_ = c.rc.SetWriteDeadline(time.Now()) // the buffered rest fails at once too
	}
}

// finish gives the client what is left of its time for the rest of the
// answer, which net/http sends once ServeHTTP returns (the pod's slot is
// free by then).
func (c *clientWriter) finish() {
	if c.gone != nil || !c.deadlines {
		return
	}
	if c.armed {
		httplimit.ResetOnClose(c.req.Context(), false)
	}
	_ = c.rc.SetWriteDeadline(time.Now().Add(max(c.left, time.Second)))
}

// Unwrap lets http.ResponseController reach the connection.
func (c *clientWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
