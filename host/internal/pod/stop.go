package pod

import (
	"context"
	"time"
)

// stopWait bounds how long Stop waits for a running callback to notice the
// cancellation before it leaves closing the runtime to a goroutine.
const stopWait = 5 * time.Second

// Stop stops the pod: it cancels the instance's context (a running callback
// is killed, sleeps and calls are interrupted with K32_ERR_INTR), then closes
// the runtime. It never waits for a callback forever.
func (p *Pod) Stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.status.Ready = false
	p.signalLocked()
	s := p.status
	p.mu.Unlock()
	p.notify(s)

	p.cancel()
	// A Start under way finishes first (its compilation cannot be cut
	// short, and the module budgets bound it); it sees stopped and lets go
	// of what it took.
	p.starting.Wait()
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case p.lock <- struct{}{}:
		p.closeRuntime()
		<-p.lock
	case <-t.C:
		go func() {
			p.lock <- struct{}{}
			p.closeRuntime()
			<-p.lock
		}()
	}
}

// closeRuntime frees the instance and the pod's hold on the compiled
// module and the shared runtime.
func (p *Pod) closeRuntime() {
	p.mu.Lock()
	rt, inst, key := p.rt, p.inst, p.moduleKey
	p.rt, p.compiled, p.inst = nil, nil, nil
	p.mu.Unlock()
	if inst != nil {
		inst.mod.Close(context.Background())
	}
	if rt != nil {
		releaseModule(p.cfg.Cache, key)
		releaseRuntime(p.cfg.Cache)
	}
	releaseMemory(inst)
	p.stdout.flush()
	p.stderr.flush()
	p.nodef(1, "stopped")
}
