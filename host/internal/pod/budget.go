package pod

import (
	"context"
	"sync"
	"time"
)

// budgetCtx is the context of a callback with a deadline: it ends when its
// parent does, or once the callback has used its time budget
// (HandlerTimeout). Time the callback spends held (a write blocked on a
// slow client, clientWriter) does not count: the deadline measures the
// pod's own time, so a client that does not read never makes the node kill
// the pod (docs/serve.md, "Hostile clients"). Its Err is
// context.DeadlineExceeded when the budget is spent, which is how wazero's
// CloseOnContextDone tells a deadline from a Stop.
type budgetCtx struct {
	context.Context // the parent, for values
	done            chan struct{}
	stopParent      func() bool

	mu    sync.Mutex
	err   error
	timer *time.Timer
	left  time.Duration // the budget left at since
	since time.Time     // when the budget last started running; zero while held
	holds int
}

type budgetKey struct{}

// withBudget returns a context that ends d of the callback's own time
// after now, or with parent, and its cancel function.
func withBudget(parent context.Context, d time.Duration) (*budgetCtx, context.CancelFunc) {
	c := &budgetCtx{Context: parent, done: make(chan struct{}), left: d, since: time.Now()}
	c.mu.Lock() // end waits until both are set
	c.timer = time.AfterFunc(d, func() { c.end(context.DeadlineExceeded) })
	c.stopParent = context.AfterFunc(parent, func() { c.end(parent.Err()) })
	c.mu.Unlock()
	return c, func() { c.end(context.Canceled) }
}

func (c *budgetCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.timer.Stop()
	c.stopParent()
	close(c.done)
}

func (c *budgetCtx) Done() <-chan struct{} { return c.done }

func (c *budgetCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Deadline is when the budget runs out if nothing holds it from now on.
func (c *budgetCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds > 0 {
		return time.Now().Add(c.left), true
	}
	return c.since.Add(c.left), true
}

func (c *budgetCtx) Value(key any) any {
	if key == (budgetKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// hold stops the budget's clock until the returned function is called.
func (c *budgetCtx) hold() (resume func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds == 0 && c.err == nil {
		c.timer.Stop()
		c.left -= time.Since(c.since)
	}
	c.holds++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.holds--
		if c.holds == 0 && c.err == nil {
			c.since = time.Now()
			c.timer.Reset(max(c.left, 0))
		}
	}
}

// holdDeadline stops the clock of the pod's callback in progress, and its
// CPU time, until the returned function is called: the pod is waiting for
// the host, not running.
func (p *Pod) holdDeadline() (resume func()) {
	p.cpu.wait()
	resumeBudget := func() {}
	if c := p.current.Load(); c != nil {
		if b, ok := (*c).Value(budgetKey{}).(*budgetCtx); ok {
			resumeBudget = b.hold()
		}
	}
	return func() {
		resumeBudget()
		p.cpu.resume()
	}
}
