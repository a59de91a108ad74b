package pod

import (
	"errors"
	"net/http"
	"sync"
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
//
// net/http closes a connection at once when a write to it fails, so the
// reset must be armed before the write that fails: the pod's stall timer
// (clientStalled) arms it and then ends the blocked write, rather than
// every answer arming and disarming it around its writes (two system calls
// a request).
type clientWriter struct {
	http.ResponseWriter
	pod       *Pod
	req       *http.Request
	rc        http.ResponseController
	deadlines bool          // the writer has a connection whose deadlines can be set
	left      time.Duration // of the client's time to take the answer
	gone      error         // the write that dropped the client failed with it
	started   bool          // a write has cleared the connection's old deadline

	mu        sync.Mutex // between a write and the stall timer
	writing   bool       // a write is in progress, since writeAt, with writeLeft of the client's time
	writeAt   time.Time
	writeLeft time.Duration
	armed     bool // the connection resets if it closes
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
	if !c.deadlines { // in-process: the write never blocks
		return c.write(b)
	}
	if !c.started { // the stall timer bounds the writes, not a deadline left from an earlier answer
		c.started = true
		_ = c.rc.SetWriteDeadline(time.Time{})
	}
	start := time.Now()
	c.mu.Lock()
	c.writing, c.writeAt, c.writeLeft = true, start, c.left
	c.mu.Unlock()
	c.pod.writing.Store(c)
	c.pod.stallTimer.Reset(c.left)
	n, err := c.write(b)
	c.pod.stallTimer.Stop()
	c.pod.writing.Store(nil)
	c.mu.Lock()
	c.writing = false
	c.mu.Unlock()
	return n, err
}

// write writes b and counts the time it took against the client's.
func (c *clientWriter) write(b []byte) (int, error) {
	start := time.Now()
	n, err := c.ResponseWriter.Write(b)
	c.left -= time.Since(start)
	if err != nil && !errors.Is(err, http.ErrBodyNotAllowed) {
		c.drop(err)
	}
	return n, err
}

// clientStalled is the pod's stall timer's function: the write in
// progress has used the client's time. The connection is set to reset,
// then the write is ended; net/http closes the connection as the write
// fails, with a reset, which drops what the kernel still holds for the
// client. A timer that fires late, for a write already over, does
// nothing.
func (p *Pod) clientStalled() {
	c := p.writing.Load()
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.writing || time.Since(c.writeAt) < c.writeLeft {
		return
	}
	c.armReset()
	_ = c.rc.SetWriteDeadline(time.Now())
}

// armReset makes the connection end with a reset when it closes; under mu.
func (c *clientWriter) armReset() {
	if !c.armed {
		c.armed = true
		httplimit.ResetOnClose(c.req.Context(), true)
	}
}

// drop gives up on the client. net/http has closed its connection already
// if a write failed (with a reset if the stall timer armed it); otherwise
// it closes it once the callback is over, with a reset, when the buffered
// rest fails.
func (c *clientWriter) drop(err error) {
	c.gone = err
	if !c.deadlines {
		return
	}
	c.mu.Lock()
	c.armReset()
	c.mu.Unlock()
	_ = c.rc.SetWriteDeadline(time.Now()) // the buffered rest fails at once too
}

// finish gives the client what is left of its time for the rest of the
// answer, which net/http sends once ServeHTTP returns (the pod's slot is
// free by then).
func (c *clientWriter) finish() {
	if c.gone != nil || !c.deadlines {
		return
	}
	c.mu.Lock()
	if c.armed { // the stall timer fired as a write succeeded
		c.armed = false
		httplimit.ResetOnClose(c.req.Context(), false)
	}
	c.mu.Unlock()
	_ = c.rc.SetWriteDeadline(time.Now().Add(max(c.left, time.Second)))
}

// Unwrap lets http.ResponseController reach the connection.
func (c *clientWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
