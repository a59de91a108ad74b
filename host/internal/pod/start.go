package pod

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/tetratelabs/wazero"
)

// startError is why a container could not start, as the status reports it.
type startError struct{ reason, message string }

func (e *startError) Error() string { return e.message }

// Start checks the module against the ABI and the memory limit, compiles it,
// instantiates it, and runs _initialize and k32_init. ctx bounds this work
// only: the pod then runs until Stop. A failure is also in Status (Phase
// Failed, with a Reason and a Message a person can act on).
func (p *Pod) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.started {
		p.mu.Unlock()
		return fmt.Errorf("pod %s: already started", p.id)
	}
	p.started = true
	if p.stopped {
		p.mu.Unlock()
		return fmt.Errorf("pod %s: stopped before it started", p.id)
	}
	p.starting.Add(1)
	p.mu.Unlock()
	defer p.starting.Done()

	if serr := p.prepare(ctx); serr != nil {
		return p.fail(serr)
	}
	inst, serr := p.instantiate(ctx)
	if serr != nil {
		return p.fail(serr)
	}
	if !p.install(inst, true) {
		return fmt.Errorf("pod %s: stopped while starting", p.id)
	}
	return nil
}

// prepare checks the module and compiles it into the shared runtime.
func (p *Pod) prepare(ctx context.Context) *startError {
	if rep, err := check(ctx, p.cfg.Module, p.memoryLimit()); err != nil {
		return p.checkError(rep, err)
	}
	// The runtime is shared with the pods of the same compilation cache
	// (runtime.go), and so is the compiled module; the instance and its
	// memory are the pod's own.
	rt, err := acquireRuntime(ctx, p.cfg.Cache)
	if err != nil {
		return &startError{reasonModuleInvalid, err.Error()}
	}
	compiled, key, unmetered, err := acquireModule(ctx, p.cfg.Cache, p.cfg.Module, p.cfg.Timing)
	p.uncounted.Store(unmetered != nil)
	if unmetered != nil {
		p.nodef(2, "board time not counted: %v", unmetered)
	}
	if err != nil {
		releaseRuntime(p.cfg.Cache)
		return &startError{reasonModuleInvalid, "compiling module: " + err.Error()}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		releaseModule(p.cfg.Cache, key)
		releaseRuntime(p.cfg.Cache)
		return &startError{"Stopped", "stopped while starting"}
	}
	p.rt, p.compiled, p.moduleKey = rt, compiled, key
	return nil
}

// memoryLimit is the container's memory limit in bytes: its own, or the
// node's default for a container that sets none.
func (p *Pod) memoryLimit() int64 {
	switch {
	case p.cfg.MemoryLimit > 0:
		return p.cfg.MemoryLimit
	case p.cfg.DefaultMemoryLimit > 0:
		return p.cfg.DefaultMemoryLimit
	}
	return DefaultMemoryLimit
}

// limitWords names the memory limit in a message: the container's, or the
// node's default.
func (p *Pod) limitWords() string {
	if p.cfg.MemoryLimit > 0 {
		return "the limit resources.limits.memory is"
	}
	return "the container sets no resources.limits.memory, and the node's default limit (kube32 serve --default-memory-limit) is"
}

// checkError turns a modcheck failure into the status the pod reports.
func (p *Pod) checkError(rep modcheck.Report, err error) *startError {
	var cerr *modcheck.Error
	if !errors.As(err, &cerr) {
		return &startError{reasonModuleInvalid, err.Error()}
	}
	if len(cerr.OverBudget) > 0 {
		// Refused before anything compiled it; only a smaller module helps.
		return &startError{ReasonModuleLimitExceeded, "module is over the module budgets a board loads: " + cerr.Error()}
	}
	if len(cerr.Unsupported) > 0 {
		// Neither a larger limit nor a restart helps: the module must be built without them.
		return &startError{ReasonUnsupportedWasmFeature, "module uses WebAssembly features the boards do not run: " + cerr.Error()}
	}
	if !cerr.MemoryExceeded {
		return &startError{reasonModuleInvalid, "module does not fit k32_app_abi: " + cerr.Error()}
	}
	// Say it again in the words of the pod spec, with both ways out.
	need := int64(rep.InitialPages) * modcheck.PageSize
	capPages := modcheck.CapPages(p.memoryLimit())
	msg := fmt.Sprintf("module needs %s of initial memory; %s %s (%s). "+
		"Raise resources.limits.memory to at least %s, or build the module with at most %s of initial memory (clang: -Wl,--initial-memory=%d)",
		modcheck.FormatPages(rep.InitialPages), p.limitWords(), modcheck.FormatBytes(p.memoryLimit()), modcheck.Pages(capPages),
		modcheck.FormatBytes(need), modcheck.FormatBytes(int64(capPages)*modcheck.PageSize), int64(capPages)*modcheck.PageSize)
	var others []string
	for _, prob := range cerr.Problems {
		if !strings.HasPrefix(prob, "initial memory") {
			others = append(others, prob)
		}
	}
	if len(others) > 0 {
		msg += "; also: " + strings.Join(others, "; ")
	}
	return &startError{ReasonMemoryLimitExceeded, msg}
}

// instantiate makes a fresh instance and runs _initialize and k32_init under
// the callback deadline.
func (p *Pod) instantiate(ctx context.Context) (*instance, *startError) {
	mc := wazero.NewModuleConfig().
		WithName(""). // anonymous: a restart instantiates again in the same runtime
		WithStartFunctions().
		WithStdout(p.stdout).WithStderr(p.stderr).
		WithRandSource(rand.Reader).
		WithSysWalltime().WithSysNanotime().
		WithNanosleep(p.nanosleep)
	for _, e := range p.cfg.Env {
		if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") || strings.ContainsRune(e.Value, 0) {
			p.nodef(2, "env %q left out of WASI environ: a name cannot be empty or hold '=' or NUL", e.Name)
			continue
		}
		mc = mc.WithEnv(e.Name, e.Value)
	}
	p.mu.Lock()
	rt, compiled := p.rt, p.compiled
	p.mu.Unlock()
	if rt == nil {
		return nil, &startError{"Stopped", "the pod is stopped"}
	}
	mem := &linearMemory{pod: p, limit: uint64(modcheck.CapPages(p.memoryLimit())) * modcheck.PageSize}
	mod, err := rt.InstantiateModule(withMemory(ctx, mem), compiled, mc)
	if err != nil {
		return nil, &startError{reasonModuleInvalid, "instantiating module: " + err.Error()}
	}
	inst := &instance{
		mod:       mod,
		memory:    mem,
		handle:    mod.ExportedFunction("k32_handle"),
		event:     mod.ExportedFunction("k32_event"),
		startedAt: time.Now(),
		counters:  countersOf(mod),
	}
	for _, name := range []string{"k32_main", "_start"} {
		if fn := mod.ExportedFunction(name); fn != nil && inst.handle == nil {
			inst.main, inst.mainName = fn, name
			break
		}
	}
	p.lastCall = nil

	for _, name := range []string{"_initialize", "k32_init"} {
		fn := mod.ExportedFunction(name)
		if fn == nil {
			continue
		}
		o := p.invoke(ctx, inst, fn, nil, true)
		var msg string
		switch {
		case o.deadline:
			msg = fmt.Sprintf("%s ran longer than %s; the node stopped it", name, p.budgetWords())
		case o.err != nil:
			msg = fmt.Sprintf("%s failed: %v", name, o.err)
		case name == "k32_init" && int32(o.results[0]) != 0:
			code := int32(o.results[0])
			msg = fmt.Sprintf("k32_init returned %d%s; the container did not start", code, errName(code))
		default:
			continue
		}
		mod.Close(context.Background())
		p.nodef(3, "%s", msg)
		return nil, &startError{reasonInitFailed, msg}
	}
	return inst, nil
}

// errName writes " (K32_ERR_X)" for an error code, or "".
func errName(code int32) string {
	if n := abi.Errno(code).Name(); n != "" {
		return " (" + n + ")"
	}
	return ""
}

// install makes inst the serving instance and marks the pod Running.
// It returns false when the pod was stopped meanwhile.
func (p *Pod) install(inst *instance, first bool) bool {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		inst.mod.Close(context.Background())
		return false
	}
	p.inst = inst
	p.status.Phase = PhaseRunning
	p.status.Ready = true
	p.status.Started = true
	p.status.Reason, p.status.Message = "", ""
	p.status.StartedAt = inst.startedAt
	p.signalLocked()
	s := p.status
	p.mu.Unlock()
	p.notify(s)
	if first {
		p.nodef(1, "started")
	}
	if inst.main != nil {
		go p.runMain(inst)
	}
	return true
}

// fail marks the pod Failed for good.
func (p *Pod) fail(serr *startError) error {
	p.mu.Lock()
	if p.stopped { // Stop won the race: the pod is not failed, just gone
		p.mu.Unlock()
		return fmt.Errorf("pod %s: stopped while starting", p.id)
	}
	p.done = true
	p.status.Phase = PhaseFailed
	p.status.Ready = false
	p.status.Started = true
	p.status.Reason, p.status.Message = serr.reason, serr.message
	p.signalLocked()
	s := p.status
	p.mu.Unlock()
	p.notify(s)
	p.nodef(3, "failed: %s: %s", serr.reason, serr.message)
	return fmt.Errorf("pod %s: %s", p.id, serr.message)
}
