package pod

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testpods"
)

// faultsPod starts internal/testkit/testpods/c/faults.c in one page; change edits
// the config first.
func faultsPod(t *testing.T, change func(*Config)) (*Pod, string) {
	t.Helper()
	p := startPod(t, testpods.Fixture(t, "faults", 65536), change)
	return p, serve(t, p)
}

// wantIntact fails unless the faults pod answers with its static data as built.
func wantIntact(t *testing.T, url, after string) {
	t.Helper()
	if res := get(t, url+"/check"); res.status != http.StatusOK || !strings.HasPrefix(res.body, "static=intact sum=") {
		t.Fatalf("after %s: %d %q, want 200 static=intact", after, res.status, res.body)
	}
}

func TestTrapsInDeepFramesNeverCorruptThePod(t *testing.T) {
	p, url := faultsPod(t, nil)
	wantIntact(t, url, "the start")
	const traps = 100
	for i := range traps {
		if res := get(t, url+"/deep"); res.status != http.StatusInternalServerError || !strings.Contains(res.body, "k32_handle trapped") {
			t.Fatalf("trap %d: %d %q, want 500 naming the trap", i+1, res.status, res.body)
		}
	}
	wantIntact(t, url, "100 traps")
	if s := p.Status(); s.RestartCount != traps || !s.Ready || s.Phase != PhaseRunning {
		t.Errorf("status %+v, want Running, ready, %d restarts", s, traps)
	}
	if !logged(p, "k32", "restarted on a fresh instance after Error (restart 100)") {
		t.Errorf("log lacks the 100th restart: %v", p.Logs()[len(p.Logs())-3:])
	}
}

func TestStackOverflowTrapsInsteadOfOverwritingData(t *testing.T) {
	p, url := faultsPod(t, nil)
	wantIntact(t, url, "the start")
	if res := get(t, url+"/overflow"); res.status != http.StatusInternalServerError || !strings.Contains(res.body, "out of bounds memory access") {
		t.Fatalf("/overflow: %d %q, want 500 naming the trap (linked with --stack-first)", res.status, res.body)
	}
	for range 3 {
		if res := get(t, url+"/recurse"); res.status != http.StatusInternalServerError {
			t.Fatalf("/recurse: %d %q, want 500", res.status, res.body)
		}
		wantIntact(t, url, "a stack overflow")
	}
	if end := p.Status().LastTermination; end == nil || !strings.Contains(end.Message, "out of bounds memory access") {
		t.Errorf("last termination %+v, want an out-of-bounds trap", end)
	}
}

func TestMemoryGrowStopsAtTheDefaultLimit(t *testing.T) {
	_, url := faultsPod(t, nil)
	if res := get(t, url+"/grow"); res.status != http.StatusInsufficientStorage || res.body != "pages=128 grow=-1\n" {
		t.Fatalf("/grow: %d %q, want 507 at 128 pages (8Mi)", res.status, res.body)
	}
	_, url = faultsPod(t, func(c *Config) { c.DefaultMemoryLimit = 256 << 10 })
	if res := get(t, url+"/grow"); res.body != "pages=4 grow=-1\n" {
		t.Fatalf("/grow with a 256Ki default: %d %q", res.status, res.body)
	}
	_, url = faultsPod(t, func(c *Config) { c.DefaultMemoryLimit = 256 << 10; c.MemoryLimit = 128 << 10 })
	if res := get(t, url+"/grow"); res.body != "pages=2 grow=-1\n" {
		t.Fatalf("/grow with a 128Ki limit: %d %q, want the container's own limit to win", res.status, res.body)
	}
}

func TestMemoryBombGetsAStatusAndTheNextRequestAFreshInstance(t *testing.T) {
	p, url := faultsPod(t, nil)
	res := get(t, url+"/bomb")
	if res.status != http.StatusInternalServerError || !strings.Contains(res.body, "memory.grow was refused at the memory limit (8Mi)") {
		t.Fatalf("/bomb: %d %q, want 500 naming the memory limit", res.status, res.body)
	}
	wantIntact(t, url, "a memory bomb")
	end := p.Status().LastTermination
	if end == nil || end.Reason != ReasonOOMKilled || end.ExitCode != exitKilled {
		t.Fatalf("last termination %+v, want OOMKilled %d", end, exitKilled)
	}
	if got := p.inst.memory.size.Load(); got != 65536 {
		t.Errorf("fresh instance has %d bytes of memory, want its initial 65536", got)
	}
}

// Issue 19, item 8: a refused memory.grow that the pod handled (the request
// ended normally at the cap) does not make a later, unrelated trap an
// OOMKilled: the refusal counts for the callback it happened in.
func TestTrapAfterAHandledGrowRefusalIsNoOOMKill(t *testing.T) {
	p, url := faultsPod(t, nil)
	if res := get(t, url+"/grow"); res.status != http.StatusInsufficientStorage {
		t.Fatalf("/grow: %d %q, want 507", res.status, res.body)
	}
	if res := get(t, url+"/deep"); res.status != http.StatusInternalServerError {
		t.Fatalf("/deep: %d %q, want 500", res.status, res.body)
	}
	wantIntact(t, url, "the trap")
	end := p.Status().LastTermination
	if end == nil || end.Reason != reasonError || end.ExitCode != exitTrapped {
		t.Fatalf("last termination %+v, want Error %d for a plain trap", end, exitTrapped)
	}
}

func TestGoPodOutOfMemoryServesOnAFreshInstance(t *testing.T) {
	p := startPod(t, testpods.Go(t, "membomb"), nil)
	url := serve(t, p)
	if res := get(t, url+"/"); res.body != "hello 1\n" {
		t.Fatalf("first request: %d %q", res.status, res.body)
	}
	if res := get(t, url+"/bomb"); res.status != http.StatusInternalServerError {
		t.Fatalf("/bomb: %d %q, want 500", res.status, res.body)
	}
	// A fresh instance counts from 1 again; the old one, kept, would say 3
	// or fail with "fatal error: unlock of unlocked lock".
	for i, want := range []string{"hello 1\n", "hello 2\n"} {
		if res := get(t, url+"/"); res.status != http.StatusOK || res.body != want {
			t.Fatalf("request %d after the bomb: %d %q, want %q", i+1, res.status, res.body, want)
		}
	}
	s := p.Status()
	if s.RestartCount != 1 || !s.Ready || s.LastTermination == nil || s.LastTermination.Reason != ReasonOOMKilled {
		t.Errorf("status %+v (last %+v), want ready after one OOMKilled restart", s, s.LastTermination)
	}
	if !logged(p, "stderr", "fatal error: out of memory") {
		t.Errorf("the Go runtime's own line is missing from the log")
	}
}

func TestModuleOverTheDefaultMemoryLimitNamesTheFlag(t *testing.T) {
	p := New(Config{Namespace: "default", Name: "big", Module: testpods.Fixture(t, "bigmem", 131072), DefaultMemoryLimit: 64 << 10})
	defer p.Stop()
	if err := p.Start(context.Background()); err == nil {
		t.Fatal("Start accepted a module over the default memory limit")
	}
	if s := p.Status(); s.Reason != ReasonMemoryLimitExceeded || !strings.Contains(s.Message, "sets no resources.limits.memory, and the node's default limit (kube32 serve --default-memory-limit) is 64Ki (1 page)") {
		t.Fatalf("status %+v", s)
	}
}
