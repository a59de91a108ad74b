package pod

import (
	"context"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

func TestModuleOverItsMemoryLimitDoesNotStart(t *testing.T) {
	p := New(Config{Namespace: "default", Name: "big", Module: testpods.Fixture(t, "bigmem", 131072), MemoryLimit: 64 * 1024})
	defer p.Stop()
	err := p.Start(context.Background())
	if err == nil {
		t.Fatal("Start accepted a module over its memory limit")
	}
	s := p.Status()
	if s.Phase != PhaseFailed || s.Reason != ReasonMemoryLimitExceeded || !s.Started {
		t.Fatalf("status %+v, want Failed MemoryLimitExceeded", s)
	}
	for _, want := range []string{"module needs 2 pages (128Ki) of initial memory", "resources.limits.memory is 64Ki (1 page)", "at least 128Ki"} {
		if !strings.Contains(s.Message, want) {
			t.Errorf("message %q lacks %q", s.Message, want)
		}
	}
}

func TestMemoryGrowPastTheCapReturnsMinusOne(t *testing.T) {
	capped := serve(t, startPod(t, onePage(t, "probe"), func(c *Config) { c.MemoryLimit = 64 * 1024 }))
	wantLines(t, get(t, capped+"/grow").body, "grow=-1", "pages=1")
	// Without a limit the same module grows: the cap is what refused.
	free := serve(t, startPod(t, onePage(t, "probe"), nil))
	wantLines(t, get(t, free+"/grow").body, "grow=1", "pages=2")
}

func TestModuleCheckFailuresNameTheProblem(t *testing.T) {
	for _, tt := range []struct{ module, want string }{
		{"unknown_import", "import k32.k32_nope: not a k32_app_abi host function"},
		{"wrong_signature", "import k32.k32_log: signature (i32, i32) -> i32, want (i32, i32, i32) -> i32"},
		{"no_entry", "no entry export"},
	} {
		t.Run(tt.module, func(t *testing.T) {
			p := New(Config{Namespace: "default", Name: tt.module, Module: onePage(t, tt.module)})
			defer p.Stop()
			err := p.Start(context.Background())
			s := p.Status()
			if err == nil || s.Phase != PhaseFailed || s.Reason != reasonModuleInvalid {
				t.Fatalf("Start = %v, status %+v; want Failed ModuleInvalid", err, s)
			}
			if !strings.Contains(s.Message, tt.want) || !strings.Contains(err.Error(), "pod default/"+tt.module) {
				t.Errorf("message %q / error %q, want %q and the pod name", s.Message, err, tt.want)
			}
		})
	}
}

func TestInitFailureFailsTheStart(t *testing.T) {
	p := New(Config{Namespace: "default", Name: "init", Module: onePage(t, "initfail")})
	defer p.Stop()
	if err := p.Start(context.Background()); err == nil {
		t.Fatal("Start ignored k32_init's failure")
	}
	if s := p.Status(); s.Phase != PhaseFailed || s.Reason != reasonInitFailed || !strings.Contains(s.Message, "k32_init returned 1") {
		t.Fatalf("status %+v", s)
	}
	if !logged(p, "k32", "no config") {
		t.Errorf("k32_init's own log line is missing: %v", p.Logs())
	}
}

func TestLongRunningMainEndsPerRestartPolicy(t *testing.T) {
	for _, tt := range []struct {
		exit, policy string
		phase        string
		restarts     bool
	}{
		{"0", restartNever, PhaseSucceeded, false},
		{"3", restartNever, PhaseFailed, false},
		{"0", restartOnFailure, PhaseSucceeded, false},
		{"3", restartAlways, PhaseRunning, true},
	} {
		t.Run(tt.policy+"-exit-"+tt.exit, func(t *testing.T) {
			p := startPod(t, onePage(t, "main"), func(c *Config) {
				c.Env = []EnvVar{{"EXIT", tt.exit}}
				c.RestartPolicy = tt.policy
			})
			if tt.restarts {
				testenv.Eventually(t, "a restart", func() bool { return p.Status().RestartCount >= 1 })
				return
			}
			testenv.Eventually(t, "phase "+tt.phase, func() bool { return p.Status().Phase == tt.phase })
			if !logged(p, "k32", "main ran") {
				t.Errorf("k32_main did not run: %v", p.Logs())
			}
		})
	}
}

func TestRestartBackoff(t *testing.T) {
	want := []string{"0s", "1s", "2s", "4s", "8s", "16s", "30s", "30s"}
	for n, w := range want {
		if got := restartDelay(n).String(); got != w {
			t.Errorf("restartDelay(%d) = %s, want %s", n, got, w)
		}
	}
}
