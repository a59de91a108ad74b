package pod

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

func TestTrapAnswers500AndThePodServesOnAFreshInstance(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), nil)
	url := serve(t, p)
	if res := get(t, url+"/trap"); res.status != http.StatusInternalServerError {
		t.Fatalf("/trap: %d, want 500", res.status)
	}
	if res := get(t, url+"/hello"); res.status != http.StatusOK || res.body != "hello\n" {
		t.Fatalf("after a trap: %d %q", res.status, res.body)
	}
	if !logged(p, "k32", "k32_handle trapped") {
		t.Errorf("log lacks the trap: %v", p.Logs())
	}
	s := p.Status()
	if s.RestartCount != 1 || !s.Ready || s.Phase != PhaseRunning || s.LastTermination == nil {
		t.Fatalf("status after a trap = %+v, want Running and ready, one restart", s)
	}
	if end := *s.LastTermination; end.Reason != reasonError || end.ExitCode != exitTrapped ||
		end.Message != "k32_handle trapped: wasm error: unreachable" || end.FinishedAt.Before(end.StartedAt) {
		t.Errorf("last termination %+v, want Error %d naming the trap", end, exitTrapped)
	}
}

func TestEndlessLoopIsStoppedAndRestartedAlone(t *testing.T) {
	module := onePage(t, "probe")
	var mu sync.Mutex
	var statuses []Status
	// 2 s, not less: /hello after the restart has this deadline too, and a
	// loaded machine may take hundreds of milliseconds over it.
	const deadline = 2 * time.Second
	looping := startPod(t, module, func(c *Config) {
		c.Name = "loop"
		c.HandlerTimeout = deadline
		c.OnStatus = func(s Status) { mu.Lock(); statuses = append(statuses, s); mu.Unlock() }
	})
	other := startPod(t, module, func(c *Config) { c.Name = "other" })
	loopURL, otherURL := serve(t, looping), serve(t, other)

	var wg sync.WaitGroup
	var loopRes response
	wg.Add(1)
	go func() { defer wg.Done(); loopRes = get(t, loopURL+"/loop") }()
	if res := get(t, otherURL+"/hello"); res.status != http.StatusOK {
		t.Errorf("other pod while one loops: %d", res.status)
	}
	wg.Wait()
	if loopRes.status != http.StatusGatewayTimeout || !strings.Contains(loopRes.body, "exceeded "+deadline.String()) {
		t.Fatalf("/loop: %d %q, want 504 naming the deadline", loopRes.status, loopRes.body)
	}
	if rc := looping.Status().RestartCount; rc != 1 {
		t.Errorf("RestartCount %d, want 1", rc)
	}
	if !logged(looping, "k32", "[POD] default/loop k32_handle exceeded "+deadline.String()+"; restarting") {
		t.Errorf("log lacks the restart line: %v", looping.Logs())
	}
	if res := get(t, loopURL+"/hello"); res.status != http.StatusOK {
		t.Errorf("after restart: %d %q", res.status, res.body)
	}
	testenv.Eventually(t, "the restarted pod to be ready", func() bool { return looping.Status().Ready })
	mu.Lock()
	sawDown := false
	for _, s := range statuses {
		sawDown = sawDown || (!s.Ready && s.RestartCount == 1)
	}
	last := statuses[len(statuses)-1]
	mu.Unlock()
	if !sawDown || !last.Ready || last.RestartCount != 1 || last.Phase != PhaseRunning {
		t.Errorf("OnStatus saw %+v, want a not-ready restart then Running and ready", statuses)
	}
	if s := other.Status(); s.RestartCount != 0 || !s.Ready {
		t.Errorf("other pod status %+v", s)
	}
}

// TestADeadlineThatCutsASleepEndsTheInstance: a callback whose sleep the
// deadline cuts short returns to the guest, which may answer and return
// before wazero's watch on the deadline closes the instance. The callback
// still ran past its deadline: it answers 504 and the next one runs on a
// fresh instance, never on one the late close then ends under it. Before
// invoke closed such an instance itself, most rounds ran on.
func TestADeadlineThatCutsASleepEndsTheInstance(t *testing.T) {
	const deadline = 50 * time.Millisecond
	p := startPod(t, onePage(t, "probe"), func(c *Config) { c.HandlerTimeout = deadline })
	url := serve(t, p)
	for i := range 3 {
		// The guest learns of the cut (K32_ERR_INTR) and may answer with
		// it before the instance ends: then its 200 is on the wire.
		res := get(t, url+"/sleep-long")
		timedOut := res.status == http.StatusGatewayTimeout && strings.Contains(res.body, "exceeded "+deadline.String())
		answered := res.status == http.StatusOK && res.body == "sleep="+testpods.Code(abi.ErrIntr)+"\n"
		if !timedOut && !answered {
			t.Fatalf("sleep %d cut by the deadline: %d %q, want 504 naming the deadline", i, res.status, res.body)
		}
		if rc := p.Status().RestartCount; rc != int32(i+1) {
			t.Fatalf("after sleep %d: RestartCount %d, want %d", i, rc, i+1)
		}
		testenv.Eventually(t, "the back-off to end", func() bool { return p.Status().Ready })
	}
}

func TestEndlessLoopWithRestartNeverFailsThePod(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), func(c *Config) {
		c.HandlerTimeout = 300 * time.Millisecond
		c.RestartPolicy = restartNever
	})
	url := serve(t, p)
	if res := get(t, url+"/loop"); res.status != http.StatusGatewayTimeout {
		t.Fatalf("/loop: %d", res.status)
	}
	s := p.Status()
	if s.Phase != PhaseFailed || s.Reason != reasonDeadlineExceeded || s.RestartCount != 0 {
		t.Fatalf("status %+v, want Failed DeadlineExceeded", s)
	}
	if res := get(t, url+"/hello"); res.status != http.StatusServiceUnavailable {
		t.Errorf("a failed pod answered %d, want 503", res.status)
	}
}

func TestBadPointersGetFault(t *testing.T) {
	url := serve(t, startPod(t, onePage(t, "probe"), nil))
	res := get(t, url+"/fault")
	fault := testpods.Code(abi.ErrFault)
	wantLines(t, res.body, "req_path="+fault, "log="+fault, "env_key="+fault, "random="+fault, "resp_write="+fault, "resp_header="+fault)
}

func TestStopInterruptsACallback(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), nil)
	url := serve(t, p)
	done := make(chan response)
	go func() { done <- get(t, url+"/sleep-long") }()
	testenv.Eventually(t, "the callback to start", func() bool { return len(p.lock) == 1 })
	p.Stop()
	res := <-done
	t.Logf("interrupted: %d %q", res.status, res.body)
	if want := "sleep=" + testpods.Code(abi.ErrIntr); res.status != http.StatusServiceUnavailable && !strings.Contains(res.body, want) {
		t.Errorf("interrupted sleep: %d %q, want 503 or %s", res.status, res.body, want)
	}
	if res := get(t, url+"/hello"); res.status != http.StatusServiceUnavailable {
		t.Errorf("stopped pod answered %d", res.status)
	}
}

func TestRequestsDuringARestartGet503WithRetryAfter(t *testing.T) {
	p := New(Config{Namespace: "default", Name: "restarting", HandlerTimeout: 10 * time.Millisecond})
	p.waitGrace = 0
	p.restartAt = time.Now().Add(5 * time.Second) // as containerEnded sets it during a back-off
	res := get(t, serve(t, p)+"/hello")
	if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") != "5" {
		t.Fatalf("%d Retry-After %q, want 503 with Retry-After: 5", res.status, res.header.Get("Retry-After"))
	}
}
