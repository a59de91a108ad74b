package pod

import (
	"context"
	"errors"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// outcome is how one export call ended.
type outcome struct {
	results  []uint64
	err      error  // a trap, or the instance's end
	died     bool   // the instance is closed and must be replaced
	deadline bool   // the call ran past its deadline
	canceled bool   // Stop (or the caller's context) ended it
	exited   bool   // the guest called proc_exit
	exitCode uint32 // proc_exit's code

	// callerGone: the in-process call that made this k32_handle ended
	// (its timeout) before the callback did.
	callerGone bool

	board BoardTime // what the callback took on the board
}

// invoke calls fn of inst with the callback state st (nil for lifecycle
// exports). With deadline, the call gets HandlerTimeout of its own time
// (callCtx: a write held by a slow client does not count); wazero's
// CloseOnContextDone closes the instance when the context ends, which is the
// only way to stop guest code that never returns to the host.
func (p *Pod) invoke(parent context.Context, inst *instance, fn api.Function, st *callState, deadline bool) outcome {
	return p.invokeIn(new(callCtx), parent, inst, fn, st, deadline)
}

// invokeIn is invoke with ctx, a new callCtx, as the call's context.
func (p *Pod) invokeIn(ctx *callCtx, parent context.Context, inst *instance, fn api.Function, st *callState, deadline bool) outcome {
	p.newCallCtx(ctx, parent, st, deadline, p.timeout)
	defer ctx.end(context.Canceled)
	p.current.Store(ctx)
	defer p.current.Store(nil)
	if p.ctx.Err() != nil { // a Stop before the pod's watch (parentEnded) could see this call
		ctx.end(p.ctx.Err())
	}
	// A callback that runs on an in-process caller's goroutine is stopped
	// when the caller's call ends (docs/calls.md, "Timeouts").
	stopCaller := func() bool { return true }
	if st != nil && st.req != nil && inProcessCall(st.req.Context()) {
		stopCaller = context.AfterFunc(st.req.Context(), func() { ctx.end(context.Canceled) })
	}

	// A refused memory.grow explains only the end of the callback it
	// happened in: one that the guest handled says nothing of a later trap.
	inst.memory.refused.Store(false)
	p.beginMeter(ctx, inst, st, deadline)
	p.cpu.begin()
	res, err := fn.Call(ctx)
	p.cpu.end()
	// false: the caller's call ended while the callback ran, which was
	// stopped then, or told so by its sleep or call returning early.
	callerStayed := stopCaller()
	o := outcome{results: res, err: err}
	if err == nil && ctx.Err() != nil {
		// The call's context ended (its deadline, a Stop, its caller) and
		// the guest returned before wazero's watch on that context closed
		// the instance, which the watch may still do at any moment, under
		// the next callback. End it now, as that watch would have.
		err = endedMidCall(inst, ctx.Err())
		o.err = err
	}
	if err != nil {
		o.classify(err)
	}
	if err != nil && ctx.meter.overLimit() {
		// The guest stopped itself at its board time limit, as the
		// board's watchdog stops a callback: a deadline, like the
		// node's own (--board-clock).
		_ = inst.mod.CloseWithExitCode(context.Background(), sys.ExitCodeDeadlineExceeded)
		o.deadline, o.died = true, true
	}
	o.board = p.endMeter(ctx, st)
	if err != nil && inst.mod.IsClosed() {
		o.died = true
	}
	// Even a callback that returned after its caller left ran on from an
	// interruption: the next one gets a fresh instance. Its own deadline
	// and Stop take precedence.
	if !callerStayed && !o.deadline && p.ctx.Err() == nil {
		o.callerGone, o.died = true, true
	}
	return o
}

// endedMidCall closes inst, whose call's context ended with ctxErr while
// the guest ran, with the exit code wazero gives that end, and returns the
// error the call would have returned had the instance been closed under it.
func endedMidCall(inst *instance, ctxErr error) error {
	code := sys.ExitCodeContextCanceled
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		code = sys.ExitCodeDeadlineExceeded
	}
	_ = inst.mod.CloseWithExitCode(context.Background(), code)
	return sys.NewExitError(code)
}

// classify records how an export call that failed with err ended.
func (o *outcome) classify(err error) {
	var exit *sys.ExitError
	if !errors.As(err, &exit) {
		return
	}
	o.died = true
	switch exit.ExitCode() {
	case sys.ExitCodeDeadlineExceeded:
		o.deadline = true
	case sys.ExitCodeContextCanceled:
		o.canceled = true
	default:
		o.exited, o.exitCode = true, exit.ExitCode()
	}
}

// nanosleep backs WASI sleeps (poll_oneoff clock subscriptions); it ends
// early with the callback in progress or the pod, so a guest sleeping in WASI
// cannot outlive its deadline or block Stop.
func (p *Pod) nanosleep(ns int64) {
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	p.cpu.wait()
	defer p.cpu.resume()
	defer p.waitedSince(time.Now())
	var done <-chan struct{}
	if c := p.current.Load(); c != nil {
		done = c.Done()
	}
	select {
	case <-t.C:
	case <-done:
	case <-p.ctx.Done():
	}
}
