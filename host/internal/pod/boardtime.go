package pod

import (
	"context"
	"strings"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/meter"
)

// The board time of each callback (docs/boards.md, "Time on the board"):
// the guest's work, counted by the instrumented copy of its module
// (host/internal/meter), and the board's price of the host functions it
// calls, priced by the node's board (Timing, boardclock.go).

// counters are the work counters of an instance of an instrumented module
// (meter.Instrument); nil for a module that is not.
type counters struct {
	instructions, millicycles, limit api.MutableGlobal
}

// countersOf finds the counters of mod, nil when it has none.
func countersOf(mod api.Module) *counters {
	g := func(name string) api.MutableGlobal {
		mg, _ := mod.ExportedGlobal(name).(api.MutableGlobal)
		return mg
	}
	c := &counters{g(meter.InstructionsGlobal), g(meter.MillicyclesGlobal), g(meter.LimitGlobal)}
	if c.instructions == nil || c.millicycles == nil || c.limit == nil {
		return nil
	}
	return c
}

// callMeter counts the board time of one callback: the guest's own, read
// from its counters, and what its host functions cost on the board.
type callMeter struct {
	model    *abi.TimeModel // nil when the pod's work is not counted
	counters *counters
	host     float64 // cycles of host functions and in-process callees
	callees  float64 // of host, the cycles of in-process callees
	limit    float64 // cycles the callback may take; 0 for no limit
	// clock: the callback runs on the board's clock (keepClock); waited
	// is the time it spent waiting (sleeps, calls, a slow client), which
	// its board time does not count.
	clock  bool
	waited time.Duration
}

// begin zeroes the counters for a callback that may take limit of board
// time (0 for no limit).
func (m *callMeter) begin(model *abi.TimeModel, c *counters, limit time.Duration, clock bool) {
	*m = callMeter{model: model, counters: c, clock: clock}
	if c == nil {
		m.model = nil
		return
	}
	c.instructions.Set(0)
	c.millicycles.Set(0)
	if limit > 0 {
		m.limit = model.Cycles(limit)
	}
	m.setLimit()
}

// setLimit gives the guest what is left of the limit once the host
// functions have taken theirs.
func (m *callMeter) setLimit() {
	lim := uint64(meter.NoLimit)
	if m.limit > 0 {
		lim = uint64(max(m.limit-m.host, 0) * 1000)
	}
	m.counters.limit.Set(lim)
}

// charge adds what a host operation costs on the board.
func (m *callMeter) charge(cycles float64) {
	if m == nil || m.model == nil {
		return
	}
	m.host += cycles
	if m.limit > 0 {
		m.setLimit()
	}
}

// overHost reports whether the host functions alone took the callback past
// its limit.
func (m *callMeter) overHost() bool { return m.limit > 0 && m.host > m.limit }

// cycles is the board time so far, in cycles of the board's core.
func (m *callMeter) cycles() float64 {
	if m.model == nil {
		return 0
	}
	return float64(m.counters.millicycles.Get())/1000 + m.host
}

// elapsed is the board time so far.
func (m *callMeter) elapsed() time.Duration {
	if m.model == nil {
		return 0
	}
	return m.model.Duration(m.cycles())
}

// overLimit reports whether the guest stopped itself at its limit.
func (m *callMeter) overLimit() bool {
	return m.model != nil && m.counters.millicycles.Get() > m.counters.limit.Get()
}

// BoardTime is what one callback took on the board.
type BoardTime struct {
	Duration time.Duration
	// Own is Duration less the in-process callees' time: what the pod
	// itself spent of the board's core, its CPU.
	Own          time.Duration
	Instructions uint64
}

// result is the callback's board time once it is over.
func (m *callMeter) result() BoardTime {
	if m.model == nil {
		return BoardTime{}
	}
	return BoardTime{Duration: m.elapsed(), Own: m.model.Duration(m.cycles() - m.callees),
		Instructions: m.counters.instructions.Get()}
}

// meterOf is the meter of the callback whose context ctx is; nil outside
// one.
func meterOf(ctx context.Context) *callMeter {
	if c, ok := ctx.(*callCtx); ok {
		return &c.meter
	}
	c, _ := ctx.Value(callCtxKey{}).(*callCtx)
	if c == nil {
		return nil
	}
	return &c.meter
}

type callCtxKey struct{}

// beginMeter readies the meter of c, a callback of inst: under
// --board-clock one with a deadline may take HandlerTimeout of board time,
// and one that a client waits for (not an in-process call, which runs
// inside its caller's time) keeps the board's clock.
func (p *Pod) beginMeter(c *callCtx, inst *instance, st *callState, deadline bool) {
	t := p.cfg.Timing
	if t == nil {
		c.meter = callMeter{}
		return
	}
	var limit time.Duration
	if t.Clock && deadline {
		limit = p.timeout
	}
	clock := t.Clock && !inProcess(st)
	if clock {
		c.started = time.Now() // keepClock's zero; no clock read otherwise
	}
	c.meter.begin(&t.Board.Time, inst.counters, limit, clock)
}

// endMeter records the board time of the callback c and returns it. An
// in-process callee's time is its caller's too: the board's one
// interpreter runs both.
func (p *Pod) endMeter(c *callCtx, st *callState) BoardTime {
	t := p.cfg.Timing
	if t == nil || c.meter.model == nil {
		return BoardTime{}
	}
	if inProcess(st) {
		if caller := meterOf(st.req.Context()); caller != nil && caller.model != nil {
			caller.callees += c.meter.cycles()
			caller.charge(c.meter.cycles())
		}
	}
	p.keepClock(c)
	bt := c.meter.result()
	slow := t.Slow > 0 && bt.Duration > t.Slow
	p.board.add(bt, slow)
	if slow {
		p.nodef(2, "%s took %s on the board (%s, %d instructions), over %s",
			describeCallback(st), bt.Duration.Round(time.Microsecond), t.Board.Name, bt.Instructions, t.Slow)
	}
	return bt
}

// inProcess reports whether st is the k32_handle of an in-process call.
func inProcess(st *callState) bool {
	return st != nil && st.req != nil && inProcessCall(st.req.Context())
}

// describeCallback names a callback in a log line: its request, its
// event's topic, or neither for a lifecycle export.
func describeCallback(st *callState) string {
	switch {
	case st == nil:
		return "a lifecycle callback"
	case st.req != nil:
		return "k32_handle of " + st.req.Method + " " + st.req.URL.RequestURI()
	case st.event:
		return "k32_event on topic " + string(st.topic)
	}
	return "a callback"
}

// waitedSince adds the time since start to what the callback in progress
// waited: a sleep or a call, which the board spends as it does here (a
// call's own board time is charged by the model instead).
func (p *Pod) waitedSince(start time.Time) {
	if c := p.current.Load(); c != nil {
		c.meter.waited += time.Since(start)
	}
}

// charge adds the board cost of a host operation to the callback in
// progress.
func (p *Pod) charge(cycles float64) {
	if c := p.current.Load(); c != nil {
		c.meter.charge(cycles)
	}
}

// hostCosts is the board's host function costs; nil when work is not
// counted.
func (p *Pod) hostCosts() *abi.HostCycles {
	if p.cfg.Timing == nil {
		return nil
	}
	return &p.cfg.Timing.Board.Time.Host
}

// chargeCall charges a k32_http_call to url with a body of reqBytes: an
// in-process call for the request and answer it copies (the callee charged
// its own time), any other one the board's network round trip, the TLS
// handshake of https://, and the board time of the pod that answered, which
// its answer's Server-Timing reports; that entry is then dropped, since a
// board sends none.
func (p *Pod) chargeCall(url string, reqBytes int, res CallResult, err error) {
	hc := p.hostCosts()
	if hc == nil {
		return
	}
	bytes := reqBytes + len(res.Body)
	if res.InProcess {
		p.charge(hc.InProcessCall.Of(bytes))
		return
	}
	cycles := hc.NodeCall.Of(bytes)
	if strings.HasPrefix(strings.ToLower(url), "https://") {
		cycles += hc.TLSHandshake
	}
	if err == nil && res.Header != nil {
		values := res.Header.Values(abi.HeaderServerTiming)
		if d, _, ok := abi.ParseBoardTiming(values); ok {
			cycles += p.cfg.Timing.Board.Time.Cycles(d)
			res.Header.Del(abi.HeaderServerTiming)
			for _, v := range abi.WithoutBoardTiming(values) {
				res.Header.Add(abi.HeaderServerTiming, v)
			}
		}
	}
	p.charge(cycles)
}
