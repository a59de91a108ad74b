package pod

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/abi/modcheck"
)

// Exit codes the container status records for an instance the node ended,
// as a container runtime records a process's end.
const (
	exitTrapped = 134 // a trap ends the instance as abort() ends a process (128 + SIGABRT)
	exitKilled  = 137 // out of memory or past its deadline: the node killed it (128 + SIGKILL)
)

// releaseAbove is the memory of a dropped instance from which the node hands
// the freed memory back to the operating system at once rather than when
// the Go runtime gets round to it.
const releaseAbove = 4 << 20

// releasing is set while a debug.FreeOSMemory runs, so that a burst of
// dropped instances costs one.
var releasing atomic.Bool

// callbackEnd says how a callback's trap or exit ended inst, or nil when the
// instance may serve on. what is the export ("k32_handle").
func (p *Pod) callbackEnd(inst *instance, what string, o outcome) *Termination {
	end := &Termination{Reason: reasonError, StartedAt: inst.startedAt, FinishedAt: time.Now()}
	switch {
	case o.exited:
		end.ExitCode = int32(o.exitCode)
		end.Message = fmt.Sprintf("%s called proc_exit(%d)", what, o.exitCode)
	default:
		end.ExitCode = exitTrapped
		end.Message = fmt.Sprintf("%s trapped: %s", what, firstLine(o.err.Error()))
	}
	if inst.memory.refused.Load() {
		end.Reason, end.ExitCode = ReasonOOMKilled, exitKilled
		end.Message = fmt.Sprintf("%s after memory.grow was refused at the memory limit (%s)", end.Message, modcheck.FormatBytes(p.memoryLimit()))
	}
	return end
}

// renew replaces inst, which a trap or an exit in a callback left in a state
// the pod must not run on, with a fresh instance of the compiled module: its
// start exports run again, the pod stays Running and Ready, and the status
// counts a restart with end as the last state, unless an in-process
// caller's timeout ended it (reasonCallerTimeout). The caller holds the
// callback lock, so no callback sees the pod between the two instances.
func (p *Pod) renew(inst *instance, end Termination) {
	counted := end.Reason != reasonCallerTimeout
	inst.mod.Close(context.Background())
	p.stdout.flush()
	p.stderr.flush()
	if counted {
		p.logRestart.Store(p.Status().RestartCount + 1) // the fresh instance's lines
	}
	fresh, serr := p.instantiate(p.ctx)

	p.mu.Lock()
	if p.inst != inst || p.stopped || p.done {
		p.mu.Unlock()
		if fresh != nil {
			fresh.mod.Close(context.Background())
		}
		return
	}
	if counted {
		p.status.RestartCount++
		p.status.LastTermination = &end
	}
	if serr != nil {
		p.inst = nil
		p.mu.Unlock()
		p.fail(serr)
		return
	}
	p.inst = fresh
	if counted {
		p.status.StartedAt = fresh.startedAt
	}
	s := p.status
	p.mu.Unlock()
	if counted {
		p.notify(s)
		p.nodef(1, "restarted on a fresh instance after %s (restart %d)", end.Reason, s.RestartCount)
	}
	releaseMemory(inst)
}

// releaseMemory hands the memory of a dropped instance back to the
// operating system when it was large and on the Go heap (a mapped one is
// unmapped as it is freed, linearmem_linux.go).
func releaseMemory(inst *instance) {
	if inst == nil || !inst.memory.onHeap() || inst.memory.size.Load() < releaseAbove || !releasing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer releasing.Store(false)
		debug.FreeOSMemory()
	}()
}

// stackTrace is what follows the first line of a wazero error (its wasm
// stack trace), or "".
func stackTrace(err error) string {
	if _, rest, ok := strings.Cut(err.Error(), "\n"); ok {
		return "\n" + rest
	}
	return ""
}

// firstLine cuts a wazero error before its wasm stack trace.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
