package pod

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httplimit"
)

// handleCall is what one k32_handle callback needs, in one allocation.
type handleCall struct {
	st  callState
	cw  clientWriter
	ctx callCtx
}

// ServeHTTP runs one k32_handle callback for r (serialised per pod).
func (p *Pod) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A long-running pod holds the callback lock for good: answer at once.
	p.mu.Lock()
	noHandle := p.inst != nil && p.inst.handle == nil
	p.mu.Unlock()
	if noHandle {
		http.Error(w, fmt.Sprintf("pod %s does not serve HTTP: its module exports no k32_handle", p.id), http.StatusNotImplemented)
		return
	}
	// Under --board-clock the node runs one callback at a time, as the
	// board's one interpreter does; an in-process call runs inside its
	// caller's.
	fromClient := !inProcessCall(r.Context())
	releaseInterpreter := func() {}
	if t := p.cfg.Timing; t != nil && t.Clock && fromClient {
		if err := p.acquireInterpreter(r.Context()); err != nil {
			writeUnavailable(w, err)
			return
		}
		releaseInterpreter = t.release
	}
	inst, release, err := p.acquire(r.Context())
	if err != nil {
		releaseInterpreter()
		writeUnavailable(w, err)
		return
	}
	if inst.handle == nil {
		release()
		releaseInterpreter()
		http.Error(w, fmt.Sprintf("pod %s does not serve HTTP: its module exports no k32_handle", p.id), http.StatusNotImplemented)
		return
	}

	c := &handleCall{}
	cw := &c.cw
	cw.init(p, w, r)
	// A guest blocked reading a slow body is in the host, where the
	// instance's context cannot stop it; the connection's read deadline
	// can. The node's ports read the body before (httplimit.ReadBody), so
	// only a pod served some other way needs it. Writes to the client have
	// deadlines of their own (clientWriter).
	if cw.deadlines && !httplimit.InMemory(r) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(p.timeout + time.Second))
	}

	abi.DropReservedCookies(r.Header)
	st := &c.st
	*st = callState{req: r, w: cw, header: p.respQueue.take(), queue: &p.respQueue}
	if fromClient {
		st.timing = &c.ctx
	}
	// The callback lives in the pod's context, not the request's: a client
	// that goes away must not kill the instance.
	o := p.invokeIn(&c.ctx, p.ctx, inst, inst.handle, st, true)
	end := p.finishHandle(inst, st, o)
	cw.finish()
	p.respQueue.reset() // sendHead has copied it out; the lock is still ours
	if end == nil {
		release()
	} else {
		// The client has its answer meanwhile; the new instance is made
		// under the callback lock, before the next callback.
		go func() {
			defer release()
			p.renew(inst, *end)
		}()
	}
	// The pod is free: the client takes the rest of its answer at its pace.
	releaseInterpreter()
	cw.send()
}

// finishHandle sends what k32_handle's result asks for (docs/abi.md, "Pod
// exports") and deals with the instance's end. After a trap or an exit it
// returns how the instance ended: the caller must renew it.
func (p *Pod) finishHandle(inst *instance, st *callState, o outcome) *Termination {
	fail := func(status int, text string) {
		if !st.headSent {
			st.headSent = true
			st.addTiming(st.w.Header())
			http.Error(st.w, text, status)
		}
	}
	switch {
	case o.callerGone: // an in-process caller's timeout (invoke)
		end := p.callerTimeoutEnd(inst, st)
		fail(http.StatusGatewayTimeout, fmt.Sprintf("pod %s: %s", p.id, end.Message))
		return end
	case o.err == nil:
		code := int32(o.results[0])
		switch {
		case code == 0:
			st.sendHead(0)
		case code >= 100 && code <= 599:
			st.sendHead(int(code))
		case code < 0:
			p.nodef(2, "k32_handle returned %d%s", code, errName(code))
			fail(http.StatusInternalServerError, fmt.Sprintf("pod %s: k32_handle returned %d%s", p.id, code, errName(code)))
		default:
			p.nodef(2, "k32_handle returned %d, which is neither 0, an HTTP status nor an error code", code)
			fail(http.StatusInternalServerError, fmt.Sprintf("pod %s: k32_handle returned %d", p.id, code))
		}
	case o.deadline:
		msg := fmt.Sprintf("k32_handle exceeded %s", p.budgetWords())
		next := p.containerEnded(inst, true, reasonDeadlineExceeded, msg+"; the node stopped the instance", exitKilled)
		p.nodef(3, "%s; %s", msg, next)
		fail(http.StatusGatewayTimeout, fmt.Sprintf("pod %s: %s", p.id, msg))
	case o.canceled:
		fail(http.StatusServiceUnavailable, fmt.Sprintf("pod %s is stopping", p.id))
	default: // a trap or an exit: the pod runs on, on a fresh instance
		end := p.callbackEnd(inst, "k32_handle", o)
		p.nodef(3, "%s%s", end.Message, stackTrace(o.err))
		fail(http.StatusInternalServerError, fmt.Sprintf("pod %s: %s", p.id, end.Message))
		return end
	}
	return nil
}
