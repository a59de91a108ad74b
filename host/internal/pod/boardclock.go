package pod

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/kube32/kube32/abi"
)

// Timing is the board time of a node's pods (docs/boards.md, "Time on the
// board"): the board whose cost model turns the work counted in each
// callback into time, and under --board-clock the node's one interpreter,
// which runs one callback at a time for at least its board time. One per
// node, shared by its pods.
type Timing struct {
	Board abi.Board
	// Clock runs callbacks on the board's clock (serve --board-clock).
	Clock bool
	// Standing: the node stands for the board (serve --board), so the
	// pods' CPU is reported as the board would spend it.
	Standing bool
	// Slow is the board time past which a callback is slow: one [POD]
	// line, and the web view marks the pod.
	Slow time.Duration

	interpreter chan struct{} // held by the callback that runs, under Clock
}

// NewTiming makes the Timing of one node.
func NewTiming(board abi.Board, standing, clock bool, slow time.Duration) *Timing {
	return &Timing{Board: board, Standing: standing, Clock: clock, Slow: slow, interpreter: make(chan struct{}, 1)}
}

// acquire waits for the node's interpreter, at most until ctx ends.
func (t *Timing) acquire(ctx context.Context) bool {
	select {
	case t.interpreter <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (t *Timing) release() { <-t.interpreter }

// keepClock, under --board-clock, holds the callback c until the wall
// clock has caught up with its board time (and what it waited): called
// before each write to the client, so that the answer leaves when it
// would leave the board, and at the end, while the node's interpreter is
// still held. Past its limit by the host functions' time alone, the
// callback ends as the board's watchdog would end it.
func (p *Pod) keepClock(c *callCtx) {
	m := &c.meter
	if !m.clock || m.model == nil {
		return
	}
	if m.overHost() {
		c.end(context.DeadlineExceeded)
		return
	}
	d := m.elapsed() + m.waited - time.Since(c.started)
	if d <= 0 {
		return
	}
	held := c.timer != nil
	if held {
		c.hold() // the budget is the board time, which the limit holds
		defer c.resume()
	}
	p.cpu.wait()
	defer p.cpu.resume()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.Done():
	}
}

// onBoardClock, before a write to the client, holds the callback in
// progress until the board would write (keepClock).
func (p *Pod) onBoardClock() {
	if c := p.current.Load(); c != nil {
		p.keepClock(c)
	}
}

// acquireInterpreter waits for the node's interpreter under --board-clock,
// as long as a request waits for a busy pod (acquire).
func (p *Pod) acquireInterpreter(ctx context.Context) error {
	wait, cancel := context.WithTimeout(ctx, p.timeout+p.waitGrace)
	defer cancel()
	if p.cfg.Timing.acquire(wait) {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &unavailable{http.StatusServiceUnavailable, time.Second,
		fmt.Sprintf("pod %s: the node's interpreter was busy with other callbacks for %s (--board-clock runs one at a time)",
			p.id, p.timeout+p.waitGrace)}
}

// budgetWords names a callback's time budget in a message: HandlerTimeout,
// of board time under --board-clock, where the board's watchdog keeps it.
func (p *Pod) budgetWords() string {
	if t := p.cfg.Timing; t != nil && t.Clock {
		return fmt.Sprintf("%s of board time on %s (--board-clock)", p.timeout, t.Board.Name)
	}
	return p.timeout.String()
}
