package pod

import (
	"fmt"
)

// runMain runs a long-running export (k32_main, or _start of a WASI
// command) of a pod without k32_handle. It holds the callback lock for its
// whole run, so nothing else enters the instance meanwhile; its return ends
// the container and the restart policy decides what follows.
func (p *Pod) runMain(inst *instance) {
	select {
	case p.lock <- struct{}{}:
	case <-p.ctx.Done():
		return
	}
	p.mu.Lock()
	current := p.inst == inst
	p.mu.Unlock()
	if !current {
		<-p.lock
		return
	}
	o := p.invoke(p.ctx, inst, inst.main, nil, false)
	<-p.lock

	var code int64
	reason, msg := ReasonCompleted, ""
	switch {
	case o.canceled || p.ctx.Err() != nil:
		// Stopped: a k32_main that returns once its sleep or call is
		// interrupted ends by the stop too, which Stop logs.
		return
	case o.err == nil && inst.mainName == "k32_main":
		code = int64(int32(o.results[0]))
		msg = fmt.Sprintf("k32_main returned %d", code)
	case o.err == nil:
		msg = inst.mainName + " returned"
	case o.exited:
		code = int64(o.exitCode)
		msg = fmt.Sprintf("%s called proc_exit(%d)", inst.mainName, code)
	default:
		code = 1
		msg = fmt.Sprintf("%s trapped: %v", inst.mainName, o.err)
	}
	if code != 0 {
		reason = reasonError
	}
	next := p.containerEnded(inst, code != 0, reason, msg, int32(code))
	level := 1
	if code != 0 {
		level = 3
	}
	p.nodef(level, "%s; %s", msg, next)
}
