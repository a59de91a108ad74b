package pod

import (
	"context"
	"slices"
	"sync"
	"time"
)

// callCtx is the context of one export call (invoke): it carries the pod
// and the callback's state for the host functions, and ends when its parent
// does, when the call is over, or, for a call with a deadline, once the
// callback has used its time budget (HandlerTimeout). Time the callback
// spends held (a write blocked on a slow client, clientWriter) does not
// count: the deadline measures the pod's own time, so a client that does
// not read never makes the node kill the pod (docs/serve.md, "Hostile
// clients"). Its Err is context.DeadlineExceeded when the budget is spent,
// which is how wazero's CloseOnContextDone tells a deadline from a Stop.
//
// One value replaces a chain of contexts (a deadline, a cancel, two values)
// so that a callback costs one allocation here, its channel (k32_handle's
// callCtx is part of its handleCall). A call under the pod's context (all
// of them hold the callback lock, one at a time) shares the pod's budget
// timer and its watch on the pod's context, re-armed per call, rather than
// making its own.
type callCtx struct {
	parent context.Context
	pod    *Pod
	st     *callState // nil for lifecycle exports
	done   chan struct{}

	// timer fires when the budget may be spent (expire checks): the pod's
	// shared one, or the call's own; nil without a deadline.
	timer      *time.Timer
	stopParent func() bool // nil when the parent is the pod's context, which the pod watches (parentEnded)

	meter   callMeter // the callback's board time (boardtime.go)
	started time.Time // when the guest was called, under --board-clock (keepClock)

	mu    sync.Mutex
	err   error
	after []*afterEnd   // AfterFunc's, run when c ends
	left  time.Duration // the budget left at since
	since time.Time     // when the budget last started running
	holds int
}

// newCallCtx readies c, a new callCtx of no other call, as the context of
// a call of p's under parent, with a budget of d of the callback's own time
// when deadline is set. The caller must end it (end(context.Canceled)) once
// the call returns.
func (p *Pod) newCallCtx(c *callCtx, parent context.Context, st *callState, deadline bool, d time.Duration) {
	c.parent, c.pod, c.st, c.done = parent, p, st, make(chan struct{})
	// Fail closed: were a call of the pod already in progress, which the
	// callback lock rules out, this one would time itself.
	shared := parent == p.ctx && p.current.Load() == nil
	c.mu.Lock() // end waits until the watches are set
	if deadline {
		c.left, c.since = d, time.Now()
		if shared {
			c.timer = p.budgetTimer
			c.timer.Reset(d)
		} else {
			c.timer = time.AfterFunc(d, c.expire)
		}
	}
	if !shared {
		c.stopParent = context.AfterFunc(parent, func() { c.end(parent.Err()) })
	}
	c.mu.Unlock()
}

// expire ends c with context.DeadlineExceeded if its budget is spent. The
// pod's shared timer may fire late for a call already over, or while the
// next one runs: only a spent budget ends a call.
func (c *callCtx) expire() {
	c.mu.Lock()
	spent := c.err == nil && c.holds == 0 && time.Since(c.since) >= c.left
	c.mu.Unlock()
	if spent {
		c.end(context.DeadlineExceeded)
	}
}

// budgetSpent is the pod's shared budget timer's function: it checks the
// call in progress.
func (p *Pod) budgetSpent() {
	if c := p.current.Load(); c != nil && c.timer == p.budgetTimer {
		c.expire()
	}
}

// parentEnded is the pod's watch on its own context: Stop ends the call in
// progress, whatever its parent.
func (p *Pod) parentEnded() {
	if c := p.current.Load(); c != nil {
		c.end(p.ctx.Err())
	}
}

func (c *callCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.stopParent != nil {
		c.stopParent()
	}
	close(c.done)
	for _, a := range c.after {
		go a.f()
	}
	c.after = nil
}

// afterEnd is one function AfterFunc registered.
type afterEnd struct{ f func() }

// AfterFunc runs f in its own goroutine once c ends, as context.AfterFunc
// does; stop unregisters it. The context package uses it for the contexts
// made from c (k32_http_call's timeout), which then follow c's end without
// a goroutine of their own waiting for it.
func (c *callCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	a := &afterEnd{f: f}
	c.after = append(c.after, a)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.after, a)
		if i < 0 { // run already, or stopped
			return false
		}
		c.after = slices.Delete(c.after, i, i+1)
		return true
	}
}

func (c *callCtx) Done() <-chan struct{} { return c.done }

func (c *callCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Deadline is when the budget runs out if nothing holds it from now on.
func (c *callCtx) Deadline() (time.Time, bool) {
	if c.timer == nil {
		return c.parent.Deadline()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds > 0 {
		return time.Now().Add(c.left), true
	}
	return c.since.Add(c.left), true
}

func (c *callCtx) Value(key any) any {
	switch key.(type) {
	case podKey:
		return c.pod
	case callCtxKey:
		return c
	case callStateKey:
		if c.st == nil {
			return nil
		}
		return c.st
	}
	return c.parent.Value(key)
}

// hold stops the budget's clock until resume is called.
func (c *callCtx) hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds == 0 && c.err == nil {
		c.timer.Stop()
		c.left -= time.Since(c.since)
	}
	c.holds++
}

func (c *callCtx) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holds--
	if c.holds == 0 && c.err == nil {
		c.since = time.Now()
		c.timer.Reset(max(c.left, 0))
	}
}

// holdDeadline stops the clock of the pod's callback in progress, and its
// CPU time, until resumeDeadline is called with what it returned: the pod
// is waiting for the host, not running.
func (p *Pod) holdDeadline() *callCtx {
	p.cpu.wait()
	c := p.current.Load()
	if c != nil && c.timer != nil {
		c.hold()
		return c
	}
	return nil
}

// resumeDeadline ends what holdDeadline began.
func (p *Pod) resumeDeadline(held *callCtx) {
	if held != nil {
		held.resume()
	}
	p.cpu.resume()
}
