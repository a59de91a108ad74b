package build

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// pinnedProject writes a project of C pods p0, p1, … whose Pods have the
// given memory limits and placements: a spec line such as "nodeName: w1"
// or "nodeSelector: {kubernetes.io/hostname: w1}", or "" for none.
func pinnedProject(t *testing.T, limits, placements []string) string {
	dir := t.TempDir()
	files := map[string]string{}
	yaml := "name: fit\nmanifests: [app.yaml]\npods:\n"
	var manifests []string
	for i, limit := range limits {
		name := fmt.Sprint("p", i)
		yaml += fmt.Sprintf("  - name: %s\n    language: c\n    source: pods/%s\n", name, name)
		files["pods/"+name+"/main.c"] = cPodSource(false)
		place := ""
		if placements[i] != "" {
			place = "  " + placements[i] + "\n"
		}
		manifests = append(manifests, fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\nspec:\n%s  containers:\n"+
			"    - name: c\n      image: wasm://embedded/%s\n      resources:\n        limits:\n          memory: %s\n", name, place, name, limit))
	}
	files["kube32.yaml"] = yaml
	files["app.yaml"] = strings.Join(manifests, "---\n")
	testenv.WriteFiles(t, dir, files)
	return dir
}

// Issue 19, item 9: Pods pinned to two nodes run on two boards, so each
// node's Pods count against one board's pod memory: three 64Ki pods, two on
// the control plane and one on a worker, fit esp32 (128Ki of pod memory);
// a Pod pinned nowhere goes to the node with the most room, as the
// scheduler spreads it. All three on one node do not fit, and the problem
// names the node and its Pods, and gives no advice below the 64 KiB page.
func TestFitCountsEachNodesPodsAgainstOneBoard(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	cp, w1 := "nodeSelector: {kubernetes.io/hostname: kube32-control-plane}", "nodeName: kube32-worker-1"
	limits := []string{"64Ki", "64Ki", "64Ki"}
	for _, placements := range [][]string{{cp, cp, w1}, {cp, w1, ""}} {
		res, err := Build(context.Background(), pinnedProject(t, limits, placements), Options{Board: "esp32"})
		if err != nil {
			t.Fatalf("placements %q: %v", placements, err)
		}
		var rows []string
		for _, b := range res.Fit.Budgets {
			if b.Name == BudgetPodMemory {
				rows = append(rows, fmt.Sprintf("%s %d/%d over %d %q", b.Node, b.Used, b.Budget, b.OverBytes, b.Pods))
			}
		}
		want := `kube32-control-plane 131072/131072 over 0 ["default/p0 64.0 KiB" "default/p1 64.0 KiB"]|kube32-worker-1 65536/131072 over 0 ["default/p2 64.0 KiB"]`
		if placements[2] == "" {
			want = `kube32-control-plane 131072/131072 over 0 ["default/p0 64.0 KiB" "default/p2 64.0 KiB"]|kube32-worker-1 65536/131072 over 0 ["default/p1 64.0 KiB"]`
		}
		if got := strings.Join(rows, "|"); got != want {
			t.Errorf("placements %q: pod memory rows\n  %s\nwant\n  %s", placements, got, want)
		}
	}

	dir := pinnedProject(t, limits, []string{w1, w1, "nodeSelector: {kubernetes.io/hostname: kube32-worker-1}"})
	// A Pod on another node makes it an app of two boards.
	testenv.WriteFiles(t, dir, map[string]string{"app.yaml": readFile(t, filepath.Join(dir, "app.yaml")) +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: other}\nspec:\n  " + cp + "\n  containers: [{name: c, image: wasm://embedded/p0, resources: {limits: {memory: 64Ki}}}]\n"})
	_, err := Build(context.Background(), dir, Options{Board: "esp32"})
	ferr := fitError(t, err)
	want := "pod memory on node kube32-worker-1: 3 Pods request 192.0 KiB (default/p0 64.0 KiB, default/p1 64.0 KiB, default/p2 64.0 KiB; each container its resources.requests.memory, else its limits.memory, else the default memory limit, 8.0 MiB, as serve --board schedules them), over esp32's 128.0 KiB by 64.0 KiB, and esp32 holds 2 Pods (one per 64.0 KiB page of its pod memory): pin some of them to another node"
	if len(ferr.Problems) != 1 || !strings.HasPrefix(ferr.Problems[0], want) {
		t.Errorf("problems %q\nwant one starting %q", ferr.Problems, want)
	}
	if strings.Contains(err.Error(), "smaller limits") {
		t.Errorf("pods at the 64 KiB minimum are told to set smaller limits: %v", err)
	}
}

// Issue 19, item 9: the fit report's advice can be followed. Pods at the
// 64 KiB page minimum are not told to set smaller limits (a pod above it
// is, by name); a --release build is not told to try --release, nor
// (issue 30, item 10) a plain build that --release could not bring under
// its board: 640 KiB over with a bundle that does not compress, which
// --release cannot shrink; and every size of the report is written in one
// style, KiB or MiB with one decimal.
func TestFitAdviceCanBeFollowed(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	res, err := Build(context.Background(), pinnedProject(t, []string{"64Ki", "64Ki", "64Ki"}, []string{"", "", ""}), Options{Board: "esp32"})
	if problems := strings.Join(fitError(t, err).Problems, "\n"); strings.Contains(problems, "smaller limits") || !strings.Contains(problems, "run them on several boards") {
		t.Errorf("three pods at 64 KiB: %s", problems)
	}
	checkOneUnitStyle(t, res.Fit)
	_, err = Build(context.Background(), pinnedProject(t, []string{"64Ki", "128Ki"}, []string{"", ""}), Options{Board: "esp32"})
	if problems := strings.Join(fitError(t, err).Problems, "\n"); !strings.Contains(problems, "set smaller limits.memory (default/p1 128.0 KiB") {
		t.Errorf("a pod above 64 KiB is not named: %s", problems)
	}

	noise := make([]byte, 3<<20)
	rand.Read(noise)
	dir := cProject(t, 1, "64Ki", map[string]string{"noise.bin": string(noise)})
	for _, release := range []bool{false, true} {
		res, err := Build(context.Background(), dir, Options{Board: "esp32", Release: release})
		problems := strings.Join(fitError(t, err).Problems, "\n")
		if !strings.Contains(problems, "app image: ") || strings.Contains(problems, "--release") {
			t.Errorf("release %v: %s", release, problems)
		}
		checkOneUnitStyle(t, res.Fit)
	}
}

var (
	sizeStyle = regexp.MustCompile(`\d+(\.\d+)? ?(B|KiB|MiB|GiB|Ki|Mi|Gi)\b`)
	oneStyle  = regexp.MustCompile(`^(\d+ B|\d+\.\d (KiB|MiB))$`)
)

// checkOneUnitStyle fails t when a size in f's problems is written in
// another style than "123.4 KiB".
func checkOneUnitStyle(t *testing.T, f Fit) {
	t.Helper()
	for _, p := range f.Problems {
		for _, s := range sizeStyle.FindAllString(p, -1) {
			if !oneStyle.MatchString(s) {
				t.Errorf("size %q in %q", s, p)
			}
		}
	}
}
