package pod

import (
	"context"
	"fmt"
)

// Event delivers one channel message to k32_event (serialised with the
// pod's other callbacks) and returns its result. An error means the message
// was not handled: no k32_event, the pod is unavailable, or the callback
// trapped or ran out of time.
func (p *Pod) Event(ctx context.Context, topic string, data []byte) (int32, error) {
	if t := p.cfg.Timing; t != nil && t.Clock { // one callback at a time (ServeHTTP)
		if err := p.acquireInterpreter(ctx); err != nil {
			return 0, err
		}
		defer t.release()
	}
	inst, release, err := p.acquire(ctx)
	if err != nil {
		return 0, err
	}
	if inst.event == nil {
		release()
		return 0, fmt.Errorf("pod %s: its module exports no k32_event", p.id)
	}
	st := &callState{event: true, topic: []byte(topic), eventData: data}
	o := p.invoke(p.ctx, inst, inst.event, st, true)
	switch {
	case o.err == nil:
		release()
		return int32(o.results[0]), nil
	case o.deadline:
		release()
		msg := fmt.Sprintf("k32_event exceeded %s", p.budgetWords())
		next := p.containerEnded(inst, true, reasonDeadlineExceeded, msg+"; the node stopped the instance", exitKilled)
		p.nodef(3, "%s; %s", msg, next)
		return 0, fmt.Errorf("pod %s: %s", p.id, msg)
	case o.canceled:
		release()
		return 0, fmt.Errorf("pod %s is stopping", p.id)
	}
	// A trap or an exit: the pod runs on, on a fresh instance.
	end := p.callbackEnd(inst, "k32_event", o)
	p.nodef(3, "%s%s", end.Message, stackTrace(o.err))
	defer release()
	p.renew(inst, *end)
	return 0, fmt.Errorf("pod %s: %s", p.id, end.Message)
}
