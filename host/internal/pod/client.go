package pod

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// clientWriter is a k32_handle callback's way to its client. On a
// connection (the Ingress, the pod port, the API server's proxy), the
// answer's body goes into a spool (httplimit.Spool) that the client drains
// while and after the callback runs, in memory and then in a temporary
// file, so that the callback ends as soon as the pod has written and a
// client that does not read costs the pod nothing. Past the spool's limits
// the pod's writes wait for the client, at most one callback deadline
// (HandlerTimeout) in all, which does not count against the pod's own
// deadline (holdDeadline); past it the connection is dropped with a reset
// (httplimit.Stall, the node's one guard of slow clients),
// the write returns an error (K32_ERR_IO to the guest), later writes are
// discarded at once, and the callback ends as the guest decides: no 504,
// no restart (docs/serve.md, "Hostile clients"). An in-process call's
// writer (no connection, its writes never block) and a HEAD request's
// (net/http discards the body) are written through.
type clientWriter struct {
	http.ResponseWriter
	pod       *Pod
	req       *http.Request
	stall     httplimit.Stall // the client's deadlines, when it has them
	deadlines bool            // the writer has a connection whose deadlines can be set
	left      time.Duration   // of the client's time to take the answer
	gone      error           // the write that dropped the client failed with it

	status  int   // the answer's final status, once its head is written
	length  int64 // the Content-Length the head declares, -1 for none
	written int64 // the body's bytes so far
	spooled bool  // the body goes through spool
	spool   httplimit.Spool
	started bool // spool is in use: it must be finished
}

// errClientGone is what writes return once the client has been dropped.
var errClientGone = errors.New("the client did not take the response in time")

// init readies c, which handleCall holds, for a callback of p.
func (c *clientWriter) init(p *Pod, w http.ResponseWriter, r *http.Request) {
	*c = clientWriter{ResponseWriter: w, pod: p, req: r, deadlines: hasDeadlines(w), left: p.timeout}
	if c.deadlines {
		c.stall.Init(w, r)
	}
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

// WriteHeader writes the head and, at the final status, chooses how the
// body goes: spooled on a connection, unless no body may follow.
func (c *clientWriter) WriteHeader(code int) {
	c.ResponseWriter.WriteHeader(code) // drops a malformed Content-Length
	if c.status != 0 || code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		return // interim (1xx), or superfluous
	}
	c.status, c.length = code, -1
	if cl := c.Header().Get("Content-Length"); cl != "" {
		if v, err := strconv.ParseInt(cl, 10, 64); err == nil && v >= 0 {
			c.length = v
		}
	}
	c.spooled = c.deadlines && c.req.Method != http.MethodHead && bodyAllowed(code)
}

// bodyAllowed reports whether an answer of status may have a body, as
// net/http decides it.
func bodyAllowed(status int) bool {
	return (status < 100 || status > 199) && status != http.StatusNoContent && status != http.StatusNotModified
}

func (c *clientWriter) Write(b []byte) (int, error) {
	if c.gone != nil {
		return 0, errClientGone
	}
	if c.status == 0 {
		c.WriteHeader(http.StatusOK) // as net/http does
	}
	if !c.spooled {
		return c.writeThrough(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	if c.written += int64(len(b)); c.length >= 0 && c.written > c.length {
		c.drop(http.ErrContentLength) // as net/http answers it, and ends the connection
		return 0, http.ErrContentLength
	}
	if !c.started {
		c.started = true
		c.spool.Init(c.ResponseWriter, c.req, httplimit.IsEventStream(c.Header()))
	}
	n := 0
	for {
		k, err := c.spool.Put(b[n:])
		n += k
		if err != nil { // the client is gone
			c.gone = err
			return n, err
		}
		if n == len(b) {
			return n, nil
		}
		// The spool is full: wait for the client, off the pod's deadline.
		if c.left <= 0 {
			c.drop(errClientGone)
			return n, errClientGone
		}
		held := c.pod.holdDeadline()
		start := time.Now()
		err = c.spool.WaitRoom(c.left)
		c.left -= time.Since(start)
		c.pod.resumeDeadline(held)
		if err != nil {
			c.drop(errClientGone)
			return n, errClientGone
		}
	}
}

// writeThrough writes b to the client at once.
func (c *clientWriter) writeThrough(b []byte) (int, error) {
	if c.left <= 0 {
		c.drop(errClientGone)
		return 0, errClientGone
	}
	held := c.pod.holdDeadline()
	defer c.pod.resumeDeadline(held)
	if c.deadlines { // in-process writes never block
		c.stall.Arm(c.left)
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
	if c.started {
		c.spool.Abort(err)
		return
	}
	if c.deadlines {
		c.stall.Drop() // the buffered rest fails at once too
	}
}

// finish gives the client what is left of its time for the rest of the
// answer, which net/http sends once ServeHTTP returns (the pod's slot is
// free by then).
func (c *clientWriter) finish() {
	if c.gone != nil || !c.deadlines || c.started {
		return
	}
	c.stall.Lift(max(c.left, time.Second))
}

// send sends what the spool still holds, once the callback is over and
// the pod's slot is free, and frees the spool, whatever became of the
// client.
func (c *clientWriter) send() {
	if c.started {
		c.spool.Finish()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *clientWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
