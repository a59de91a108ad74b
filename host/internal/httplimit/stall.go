package httplimit

import (
	"context"
	"net"
	"net/http"
	"time"
)

// The one way a node's servers deal with a client that does not take what
// it is sent (docs/serve.md, "Hostile clients"): every write of an answer
// has a deadline, and a client past it is dropped with a reset. A pod's
// answer (Spool's sender, and a pod's own writes past the spool) and the
// Ingress's copy of a worker's answer all go through a Stall.

// Stall guards the writes of one answer to its client: Arm before each
// write, Drop to give up on the client, Lift once the answer is written.
// The zero Stall guards nothing; Init readies it.
type Stall struct {
	rc      http.ResponseController
	ctx     context.Context // the request's, for ResetOnClose
	armed   bool            // the connection resets if it closes
	dropped bool
}

// Init readies s for the answer w writes to the client of r.
func (s *Stall) Init(w http.ResponseWriter, r *http.Request) {
	*s = Stall{rc: *http.NewResponseController(w), ctx: r.Context()}
}

// Arm gives the client d to take the next write. net/http closes the
// connection at once when a write fails: Arm makes that close a reset,
// which drops what the kernel still holds for a client that stopped
// reading (ResetOnClose costs no system call until the close). A dropped
// client stays dropped.
func (s *Stall) Arm(d time.Duration) {
	if s.dropped {
		return
	}
	s.armReset()
	_ = s.rc.SetWriteDeadline(time.Now().Add(d))
}

// Drop gives up on the client: the write under way, and what net/http
// would still send, fail at once, and the connection resets.
func (s *Stall) Drop() {
	s.dropped = true
	s.armReset()
	_ = s.rc.SetWriteDeadline(time.Now())
}

// Lift ends the guard once the answer is written: the connection closes
// gracefully again and what net/http still sends has d (0: no deadline,
// as net/http leaves a connection between requests). A dropped client
// stays dropped.
func (s *Stall) Lift(d time.Duration) {
	if s.dropped {
		return
	}
	if s.armed {
		s.armed = false
		ResetOnClose(s.ctx, false)
	}
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	_ = s.rc.SetWriteDeadline(deadline)
}

// Flush sends what the answer holds to the client, within the deadline of
// the last Arm.
func (s *Stall) Flush() error { return s.rc.Flush() }

func (s *Stall) armReset() {
	if !s.armed {
		s.armed = true
		ResetOnClose(s.ctx, true)
	}
}

// ResetOnClose makes the connection that the request of ctx came on end
// with a reset (reset true) or a graceful close (false, the default) when
// it is closed. net/http closes a connection at once when a write to it
// fails; with a reset, what the kernel still holds for a client that
// stopped reading is dropped at once rather than trickled to it for
// minutes (a pod's answer to a slow client, docs/serve.md "Hostile
// clients"). A request that came on no connection of these servers is
// left alone. The wish is applied when the connection closes, so that
// arming and lifting it around every answer costs no system call.
func ResetOnClose(ctx context.Context, reset bool) {
	if c, _ := ctx.Value(connKey{}).(*conn); c != nil {
		c.reset.Store(reset)
	}
}

// applyReset sets the socket to end with a reset when the connection asked
// for one (ResetOnClose).
func (tc *conn) applyReset() {
	if !tc.reset.Load() {
		return
	}
	if c, ok := tc.Conn.(*net.TCPConn); ok {
		_ = c.SetLinger(0)
	}
}
