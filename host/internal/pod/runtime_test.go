package pod

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// refs is how many pods hold the runtime of cache (0: none is open).
func refs(cache wazero.CompilationCache) int {
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	if s, ok := runtimes[cache]; ok {
		return s.refs
	}
	return 0
}

// modules is how many modules the runtime of cache holds compiled, and how
// many pods hold the one of module.
func modules(cache wazero.CompilationCache, module []byte) (n, holders int) {
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	s, ok := runtimes[cache]
	if !ok {
		return 0, 0
	}
	if m, ok := s.modules[sha256.Sum256(module)]; ok {
		holders = m.refs
	}
	return len(s.modules), holders
}

// Pods of one cache share a runtime, and pods of one module its compiled
// module, yet each host call sees its own pod: its environment and its
// capabilities. Stopping one leaves the other serving; the last one closes
// the runtime.
func TestPodsShareARuntimeButNotTheirState(t *testing.T) {
	cache := wazero.NewCompilationCache()
	defer cache.Close(context.Background())
	module := onePage(t, "probe")
	a := startPod(t, module, func(c *Config) {
		c.Name, c.Cache, c.Capabilities = "a", cache, []string{"SERVICE_CALL"}
		c.Env = []EnvVar{{Name: "GREETING", Value: "from a"}}
	})
	b := startPod(t, module, func(c *Config) {
		c.Name, c.Cache = "b", cache
		c.Env = []EnvVar{{Name: "GREETING", Value: "from b"}}
	})
	if refs(cache) != 2 || a.rt != b.rt {
		t.Fatalf("two pods of one cache: %d holders of its runtime, same runtime %v", refs(cache), a.rt == b.rt)
	}
	if n, holders := modules(cache, module); n != 1 || holders != 2 || a.compiled != b.compiled {
		t.Fatalf("two pods of one module: %d modules compiled, %d holders of theirs, the same compiled module %v; want 1, 2, true", n, holders, a.compiled == b.compiled)
	}
	other := startPod(t, onePage(t, "faults"), func(c *Config) { c.Name, c.Cache = "other", cache })
	if n, _ := modules(cache, module); n != 2 {
		t.Fatalf("a pod of another module: %d modules compiled, want 2", n)
	}
	other.Stop()
	if n, holders := modules(cache, module); n != 1 || holders != 2 {
		t.Fatalf("after the other module's pod stopped: %d modules compiled, %d holders of the first; want 1, 2", n, holders)
	}
	urlA, urlB := serve(t, a), serve(t, b)
	wantLines(t, get(t, urlA+"/echo").body, "env=from a")
	wantLines(t, get(t, urlB+"/echo").body, "env=from b")
	wantLines(t, get(t, urlA+"/call").body, "call="+testpods.Code(abi.ErrNotSup))
	wantLines(t, get(t, urlB+"/call").body, "call="+testpods.Code(abi.ErrPerm))

	a.Stop()
	if _, holders := modules(cache, module); refs(cache) != 1 || holders != 1 {
		t.Fatalf("after one of two pods stopped: %d holders of the runtime, %d of the module", refs(cache), holders)
	}
	wantLines(t, get(t, urlB+"/echo").body, "env=from b")
	b.Stop()
	if refs(cache) != 0 {
		t.Fatalf("after both pods stopped: %d holders, want the runtime closed", refs(cache))
	}
}

// A pod stopped while it compiles holds Stop until the compilation ends, so
// that the owner of the compilation cache (serve, on its way out) closes it
// only once no pod uses it: closing it under a compilation crashed the
// process (a wazero engine's map written after Close).
func TestStopWaitsForACompilationUnderWay(t *testing.T) {
	module := testpods.Go(t, "membomb") // megabytes of code: a compilation long enough to stop under
	for i := range 3 {
		cache, err := NewDiskCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p := New(Config{Namespace: "default", Name: "compiling", Module: module, Cache: cache})
		started := make(chan error, 1)
		go func() { started <- p.Start(context.Background()) }()
		time.Sleep(time.Duration(i) * 20 * time.Millisecond) // into the check, the compilation or after
		p.Stop()
		cache.Close(context.Background())
		<-started // Start ends, stopped or started, without a panic
	}
}
