package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube32/kube32/internal/testkit/testpods"
)

// rssBudget is what docs/boards.md ("Module budgets") promises: refusing
// the hostile modules keeps serve's RSS under it.
const rssBudget = 300 << 20

// runModuleBudget starts, one after another, three pods whose modules
// once took serve gigabytes or tens of seconds of CPU to compile: 20
// million locals in one function, 100,000 nested blocks, a br_table of
// 500,000 targets. Each must be Failed with reason
// ModuleLimitExceeded; it reports how long the refusal took (from the
// Pod's creation to its Failed status), and serve's RSS before and at its
// peak while they were refused, sampled every 2 ms and read as VmHWM
// after resetting it.
func runModuleBudget(s *server) []row {
	const fault = "module over a budget"
	wasmDir := filepath.Join(s.images, "firmware", "images", "wasm")
	modules := []struct {
		name   string
		what   string
		module testpods.Hostile
	}{
		{"budget-locals", "20M i64 locals", testpods.Hostile{Locals: 20_000_000}},
		{"budget-nested", "100k nested blocks", testpods.Hostile{Depth: 100_000}},
		{"budget-brtable", "500k-target br_table", testpods.Hostile{BrTable: 500_000}},
	}
	for _, m := range modules {
		if err := os.WriteFile(filepath.Join(wasmDir, m.name+".wasm"), m.module.Wasm(), 0o644); err != nil {
			return failed(fault, err)
		}
	}
	runtime.GC()
	before := rss()
	resetPeakRSS()
	stop := samplePeakRSS()
	var rows []row
	for _, m := range modules {
		o := benchPod(m.name, m.name, host.ControlPlaneName)
		p := o.Obj.(*corev1.Pod)
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Ki")}
		start := time.Now()
		if err := s.c.ApplyObject(p); err != nil {
			rows = append(rows, row{fault, m.what, err.Error()})
			continue
		}
		got, err := waitFailed(s, m.name, 2*time.Minute)
		took := time.Since(start)
		if err != nil {
			rows = append(rows, row{fault, m.what, err.Error()})
			continue
		}
		rows = append(rows, row{fault, m.what + ": refused in / reason", fmt.Sprintf("%s / %s: %s", took.Round(time.Millisecond), got.Status.Reason, firstProblem(got.Status.Message))})
	}
	during := max(stop(), peakRSS())
	verdict := "under"
	if during >= rssBudget {
		verdict = "OVER"
	}
	rows = append(rows, row{fault, "RSS before / peak while refusing", fmt.Sprintf("%d / %d MB (%s the %d MB budget)", before>>20, during>>20, verdict, rssBudget>>20)})
	for _, m := range modules {
		s.c.Delete(host.Key{Kind: "Pod", Namespace: "default", Name: m.name})
	}
	return append(rows, runWithinBudget(s, wasmDir)...)
}

// runWithinBudget starts a pod whose module is as costly to compile as
// the budgets allow: two functions of 8191 ifs each, just within
// abi.CompileWeightMax (an if weighs two blocks). It reports how long the
// pod took to run (check and compile) and serve's peak RSS meanwhile.
func runWithinBudget(s *server, wasmDir string) []row {
	const fault, name = "module within the budgets", "budget-within"
	if err := os.WriteFile(filepath.Join(wasmDir, name+".wasm"), testpods.Hostile{Functions: 2, Ifs: 8191}.Wasm(), 0o644); err != nil {
		return failed(fault, err)
	}
	runtime.GC()
	before := rss()
	resetPeakRSS()
	stop := samplePeakRSS()
	o := benchPod(name, name, host.ControlPlaneName)
	p := o.Obj.(*corev1.Pod)
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Ki")}
	start := time.Now()
	if err := s.c.ApplyObject(p); err != nil {
		return failed(fault, err)
	}
	phase, err := waitPhase(s, name, 5*time.Minute, corev1.PodRunning, corev1.PodFailed)
	took := time.Since(start)
	during := max(stop(), peakRSS())
	defer s.c.Delete(host.Key{Kind: "Pod", Namespace: "default", Name: name})
	if err != nil {
		return failed(fault, err)
	}
	return []row{
		{fault, "2 functions of 8191 ifs: phase, time to start", fmt.Sprintf("%s in %s", phase, took.Round(time.Millisecond))},
		{fault, "RSS before / peak while compiling", fmt.Sprintf("%d / %d MB", before>>20, during>>20)},
	}
}

// waitFailed waits for pod name to be Failed.
func waitFailed(s *server, name string, timeout time.Duration) (*corev1.Pod, error) {
	if _, err := waitPhase(s, name, timeout, corev1.PodFailed); err != nil {
		return nil, err
	}
	o, _ := s.c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name})
	return o.(*corev1.Pod), nil
}

// waitPhase waits for pod name to reach one of phases, and returns it.
func waitPhase(s *server, name string, timeout time.Duration, phases ...corev1.PodPhase) (corev1.PodPhase, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if o, ok := s.c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name}); ok {
			if p, ok := o.(*corev1.Pod); ok && slices.Contains(phases, p.Status.Phase) {
				return p.Status.Phase, nil
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return "", fmt.Errorf("pod %s not %v after %s", name, phases, timeout)
}

// firstProblem shortens a status message to its first sentence's head.
func firstProblem(msg string) string {
	if i := strings.Index(msg, "; the boards'"); i > 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, ": "); i > 0 {
		msg = msg[i+2:]
	}
	return msg
}

// samplePeakRSS reads VmRSS every 2 ms until the returned stop, which
// returns the largest value read.
func samplePeakRSS() func() int64 {
	var (
		mu   sync.Mutex
		peak int64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			r := rss()
			mu.Lock()
			peak = max(peak, r)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// resetPeakRSS resets the process's VmHWM (Linux: 5 to clear_refs).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's VmHWM in bytes (Linux), or 0.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
