package pod

import (
	"context"
	"fmt"
	"time"
)

// Restart backoff, as the kubelet does it in spirit: the first restart after
// a container ends is immediate (a pod killed by one slow request is back at
// once); each further consecutive end doubles the wait, 1s, 2s, 4s, ...,
// capped at maxBackoff. An instance that ran backoffReset without ending
// clears the count.
const (
	maxBackoff   = 30 * time.Second
	backoffReset = 10 * time.Minute
)

// restartDelay is the wait before restart number n (0-based) of a series.
func restartDelay(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	d := time.Second
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// containerEnded retires inst after its container ended (deadline, exit,
// k32_main's return) and applies the restart policy. failed says whether the
// end counts as a failure (OnFailure restarts only those). It returns what
// happens next, for the log line: "restarting", "restarting in 4s", or the
// phase the pod ends in. exitCode is what the container status records.
func (p *Pod) containerEnded(inst *instance, failed bool, reason, message string, exitCode int32) string {
	inst.mod.Close(context.Background())
	p.stdout.flush()
	p.stderr.flush()

	p.mu.Lock()
	if p.inst != inst && p.inst != nil || p.stopped || p.done {
		p.mu.Unlock()
		return "stopped"
	}
	p.inst = nil
	p.ready = make(chan struct{})
	end := &Termination{Reason: reason, Message: message, ExitCode: exitCode, StartedAt: inst.startedAt, FinishedAt: time.Now()}
	defer releaseMemory(inst)
	policy := p.cfg.RestartPolicy
	restart := policy == restartAlways || (policy == restartOnFailure && failed)
	if !restart {
		p.done = true
		p.status.Ready = false
		p.status.Phase = PhaseSucceeded
		if failed {
			p.status.Phase = PhaseFailed
		}
		p.status.Reason, p.status.Message = reason, message
		p.signalLocked()
		s := p.status
		p.mu.Unlock()
		p.notify(s)
		return fmt.Sprintf("restartPolicy %s: pod %s", policy, s.Phase)
	}
	if time.Since(inst.startedAt) >= backoffReset {
		p.failures = 0
	}
	delay := restartDelay(p.failures)
	p.failures++
	p.restartAt = time.Now().Add(delay)
	p.status.Ready = false
	p.status.RestartCount++
	p.status.LastTermination = end
	p.status.Reason, p.status.Message = reason, message
	if delay > 0 {
		p.status.Reason = ReasonCrashLoopBackOff
		p.status.Message = fmt.Sprintf("back-off %s restarting the container after: %s", delay, message)
	}
	s := p.status
	p.mu.Unlock()
	p.notify(s)
	go p.restart(delay)
	if delay > 0 {
		return fmt.Sprintf("restarting in %s", delay)
	}
	return "restarting"
}

// restart makes a new instance after delay. It takes the callback lock so no
// request sees a half-made instance.
func (p *Pod) restart(delay time.Duration) {
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-p.ctx.Done():
			return
		}
	}
	select {
	case p.lock <- struct{}{}:
	case <-p.ctx.Done():
		return
	}
	p.logRestart.Store(p.Status().RestartCount) // the new instance's lines
	inst, serr := p.instantiate(p.ctx)
	<-p.lock
	if serr != nil {
		if p.ctx.Err() == nil {
			p.fail(serr)
		}
		return
	}
	if p.install(inst, false) {
		p.nodef(1, "restarted (restart %d)", p.Status().RestartCount)
	}
}
