package pod

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kube32/kube32/abi"
)

// reasonCallerTimeout ends an instance whose k32_handle an in-process
// caller's timeout interrupted. It is not a restart: renew replaces the
// instance without counting one (docs/calls.md, "Timeouts").
const reasonCallerTimeout = "CallerTimeout"

// callerTimeoutEnd is how inst ended when the in-process call that made
// st's request timed out while k32_handle ran: on another node the callee
// would run on to its own deadline, here it shares its caller's goroutine
// and is stopped with the call. The instance stopped mid-callback, so the
// next callback runs on a fresh one, as after a trap; but the pod did
// nothing wrong, so neither the restart count nor the back-off grows.
func (p *Pod) callerTimeoutEnd(inst *instance, st *callState) *Termination {
	caller := "its caller"
	if chain := parseCallChain(st.req.Header.Values(abi.HeaderCallChain)...); len(chain) > 0 {
		caller = chain[len(chain)-1]
	}
	// Its own timeout, or its caller's end further up a chain of calls.
	ended := "was interrupted"
	if errors.Is(st.req.Context().Err(), context.DeadlineExceeded) {
		ended = "timed out"
	}
	msg := fmt.Sprintf("k32_handle interrupted: the k32_http_call of %s %s", caller, ended)
	p.nodef(2, "%s; the next callback runs on a fresh instance", msg)
	return &Termination{Reason: reasonCallerTimeout, Message: msg, ExitCode: exitKilled,
		StartedAt: inst.startedAt, FinishedAt: time.Now()}
}
