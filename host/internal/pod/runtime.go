package pod

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/kube32/kube32/host/internal/meter"
)

// sharedRuntime is one wazero Runtime that the pods given the same
// compilation cache share, with WASI and the k32 host module instantiated
// once in it rather than once per pod: these definitions and their
// compiled trampolines were most of a small pod's host memory and start
// time. Each pod still has its own instance, its own linear memory capped
// by its limit (linearmem.go) and its own WASI configuration (environment,
// stdout and stderr, clocks); the k32 functions find the calling pod in
// the callback's context (podOf). The runtime is closed when the last pod
// using it is.
type sharedRuntime struct {
	rt   wazero.Runtime
	refs int
	// modules are the modules its pods run, compiled once each and shared
	// by digest: wazero shares the machine code of one module already,
	// but decodes and validates the bytes again at every CompileModule,
	// and each result holds its own decoded module.
	modules map[moduleKey]*sharedModule
}

// sharedModule is one compiled module and the pods holding it; ready is
// closed once compiled (or err set), so that pods of a module being
// compiled wait for it rather than compile it again.
type sharedModule struct {
	ready     chan struct{}
	compiled  wazero.CompiledModule
	err       error
	unmetered error // why its work is not counted, when asked to be
	refs      int
}

var (
	runtimesMu sync.Mutex
	runtimes   = map[wazero.CompilationCache]*sharedRuntime{}
)

// acquireRuntime returns the runtime shared by the pods of cache (nil
// included), making it when it is the first; each acquire is paired with a
// releaseRuntime.
func acquireRuntime(ctx context.Context, cache wazero.CompilationCache) (wazero.Runtime, error) {
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	if s, ok := runtimes[cache]; ok {
		s.refs++
		return s.rt, nil
	}
	// A callback's context ending (the pod stopping, its deadline) stops
	// the guest.
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(true)
	if cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(context.Background(), rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(context.Background())
		return nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	hb, err := buildHostModule(rt)
	if err == nil {
		_, err = hb.Instantiate(ctx)
	}
	if err != nil {
		rt.Close(context.Background())
		return nil, fmt.Errorf("registering k32_app_abi: %w", err)
	}
	runtimes[cache] = &sharedRuntime{rt: rt, refs: 1, modules: map[moduleKey]*sharedModule{}}
	return rt, nil
}

// moduleKey names a module among those of a runtime: its digest.
type moduleKey [sha256.Size]byte

// acquireModule returns module compiled in the runtime of cache, which the
// caller holds (acquireRuntime), compiling it when no pod of the runtime
// holds it yet, and the key that releaseModule takes back: each acquire
// that succeeds is paired with a releaseModule. With timing, what is
// compiled is a copy that counts its work for timing's board
// (meter.Instrument); a module that cannot be counted runs as it is, and
// unmetered says why.
func acquireModule(ctx context.Context, cache wazero.CompilationCache, module []byte, timing *Timing) (_ wazero.CompiledModule, _ moduleKey, unmetered, _ error) {
	h := sha256.New()
	h.Write(module)
	if timing != nil {
		h.Write([]byte("\x00counted for " + timing.Board.Name))
	}
	key := moduleKey(h.Sum(nil))
	runtimesMu.Lock()
	s := runtimes[cache]
	m, ok := s.modules[key]
	if !ok {
		m = &sharedModule{ready: make(chan struct{})}
		s.modules[key] = m
	}
	m.refs++
	runtimesMu.Unlock()
	if !ok {
		compile := module
		if timing != nil {
			counted, err := meter.Instrument(module, timing.Board.Time)
			if err == nil {
				compile = counted
			}
			m.unmetered = err
		}
		m.compiled, m.err = s.rt.CompileModule(ctx, compile)
		close(m.ready)
	}
	<-m.ready
	if m.err != nil {
		releaseModule(cache, key)
		return nil, key, m.unmetered, m.err
	}
	return m.compiled, key, m.unmetered, nil
}

// releaseModule gives back what acquireModule returned (or the hold of a
// failed acquire); the last release closes the compiled module.
func releaseModule(cache wazero.CompilationCache, key moduleKey) {
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	s := runtimes[cache]
	m := s.modules[key]
	if m.refs--; m.refs == 0 {
		delete(s.modules, key)
		if m.compiled != nil {
			m.compiled.Close(context.Background())
		}
	}
}

// releaseRuntime gives back what acquireRuntime returned for cache.
func releaseRuntime(cache wazero.CompilationCache) {
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	s, ok := runtimes[cache]
	if !ok {
		return
	}
	if s.refs--; s.refs == 0 {
		delete(runtimes, cache)
		s.rt.Close(context.Background())
	}
}

type podKey struct{}

// podOf is the pod whose callback ctx is; nil outside any.
func podOf(ctx context.Context) *Pod {
	if c, ok := ctx.(*callCtx); ok { // as invoke passes it
		return c.pod
	}
	p, _ := ctx.Value(podKey{}).(*Pod)
	return p
}
