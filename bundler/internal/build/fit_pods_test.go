package build

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// oneImageProject writes a project of one C pod, p, run by a Pod of the
// manifests for each of resources: the Pod's container resources as YAML
// flow ("{limits: {memory: 64Ki}}"), or "" for none.
func oneImageProject(t *testing.T, resources ...string) string {
	dir := t.TempDir()
	var manifests []string
	for i, r := range resources {
		res := ""
		if r != "" {
			res = ", resources: " + r
		}
		manifests = append(manifests, fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: run%d}\nspec:\n  containers: [{name: c, image: wasm://embedded/p%s}]\n", i, res))
	}
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml":   "name: fit\nmanifests: [app.yaml]\npods:\n  - name: p\n    language: c\n    source: pods/p\n",
		"pods/p/main.c": cPodSource(false),
		"app.yaml":      strings.Join(manifests, "---\n"),
	})
	return dir
}

// oneProblem builds oneImageProject(resources...) for board, which must not
// fit it, for one reason: it returns the build and that problem.
func oneProblem(t *testing.T, board string, resources ...string) (*Result, string) {
	t.Helper()
	res, err := Build(context.Background(), oneImageProject(t, resources...), Options{Board: board})
	ferr := fitError(t, err)
	if len(ferr.Problems) != 1 {
		t.Fatalf("problems %q, want one", ferr.Problems)
	}
	return res, ferr.Problems[0]
}

// Issue 30, item 5: the fit report counts every Pod object that runs an
// image, as serve --board's scheduler counts them (NodeResourcesFit: each
// Pod requests its containers' memory; a node holds one Pod per 64 KiB
// page of pod memory), not each entry of kube32.yaml once. Three Pods of
// one 64 KiB C pod do not fit esp32, which holds two; two do.
func TestFitCountsEveryPodOfAnImage(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	limit := "{limits: {memory: 64Ki}}"
	res, problem := oneProblem(t, "esp32", limit, limit, limit)
	want := "pod memory: 3 Pods request 192.0 KiB (default/run0 64.0 KiB, default/run1 64.0 KiB, default/run2 64.0 KiB; "
	if !strings.HasPrefix(problem, want) ||
		!strings.Contains(problem, "over esp32's 128.0 KiB by 64.0 KiB, and esp32 holds 2 Pods (one per 64.0 KiB page of its pod memory)") {
		t.Errorf("problem %q\nwant one starting %q, saying both the memory and the Pods are over", problem, want)
	}
	pm := budget(res.Fit, BudgetPodMemory)
	if pm.Used != 192<<10 || pm.OverBytes != 64<<10 || pm.MaxPods != 2 || pm.OverPods != 1 || len(pm.Pods) != 3 {
		t.Errorf("pod memory %+v", pm)
	}
	if p := res.Fit.Pods[0]; p.Counted != 192<<10 || !slices.Equal(p.RunBy, []string{"default/run0", "default/run1", "default/run2"}) || p.OverBytes != 0 {
		t.Errorf("pod p %+v: want counted 192 KiB, run by its three Pods, and fitting alone", p)
	}

	if _, err := Build(context.Background(), oneImageProject(t, limit, limit), Options{Board: "esp32"}); err != nil {
		t.Errorf("two Pods of 64 KiB on esp32: %v", err)
	}
}

// The scheduler's two rules apart: Pods that request little but are more
// than the board holds are refused for their number alone ("Too many
// pods"), and a Pod without a memory request or limit requests the default
// memory limit, 8 MiB ("Insufficient memory" on every board without 8 MiB
// for pods), and is told to set one.
func TestFitCountsPodsAndDefaultLimits(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	small := "{requests: {memory: 16Ki}, limits: {memory: 64Ki}}"
	res, problem := oneProblem(t, "esp32", small, small, small)
	want := "pod memory: 3 Pods request 48.0 KiB (default/run0 16.0 KiB, default/run1 16.0 KiB, default/run2 16.0 KiB; "
	if !strings.HasPrefix(problem, want) || !strings.Contains(problem, "), esp32 holds 2 Pods (") {
		t.Errorf("problem %q\nwant one starting %q, over by its Pods alone", problem, want)
	}
	if pm := budget(res.Fit, BudgetPodMemory); pm.OverBytes != 0 || pm.OverPods != 1 {
		t.Errorf("pod memory %+v", pm)
	}

	res, problem = oneProblem(t, "esp32s3", "")
	want = "pod memory: 1 Pod requests 8.0 MiB (default/run0 8.0 MiB; "
	if !strings.HasPrefix(problem, want) ||
		!strings.HasSuffix(problem, ": set resources.limits.memory on default/run0 (a container without one requests the default memory limit)") {
		t.Errorf("problem %q\nwant one starting %q that asks for a limit", problem, want)
	}
	checkOneUnitStyle(t, res.Fit)
	res, err := Build(context.Background(), oneImageProject(t, ""), Options{})
	if pm := budget(res.Fit, BudgetPodMemory); err != nil || pm.Used != 8<<20 {
		t.Errorf("without a board: %v, pod memory %+v: want the figures, 8 MiB, and no verdict", err, pm)
	}
}
