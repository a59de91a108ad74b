package cli_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// serve refuses, before compiling it, a module over a module budget (the
// three modules that once took gigabytes and tens of seconds of CPU
// from serve; docs/boards.md, "Module budgets"): each pod is Failed with
// reason ModuleLimitExceeded and a message naming the limit and the
// function, and the cluster goes on serving a pod made the same way
// within the budgets.
func TestServeRefusesAPodOverAModuleBudget(t *testing.T) {
	root := t.TempDir()
	wasmDir := filepath.Join(root, filepath.FromSlash(images.InRoot(images.Firmware, images.FirmwareWasmDir)))
	modules := map[string]testpods.Hostile{
		"locals":  {Locals: 20_000_000},
		"nested":  {Depth: 100_000},
		"brtable": {BrTable: 500_000},
		"within":  {Locals: abi.FunctionLocalsMax, Depth: 4096, BrTable: 4096},
	}
	manifest := ""
	for name, h := range modules {
		testenv.WriteFiles(t, wasmDir, map[string]string{name + ".wasm": string(h.Wasm())})
		manifest += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n  restartPolicy: Never\n  containers:\n  - name: c\n    image: \"wasm://embedded/" + name + "\"\n    resources: {limits: {memory: 64Ki}}\n"
	}
	file := filepath.Join(root, "pods.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--images", root, "-f", file)
	pod := func(name string) *corev1.Pod {
		o, _ := c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name})
		p, _ := o.(*corev1.Pod)
		return p
	}
	for name, want := range map[string]string{
		"locals":  `function "handle" declares 20000000 locals, over the limit of 50000 (abi.FunctionLocalsMax)`,
		"nested":  `function "handle" nests blocks deeper than the limit of 16384 (abi.BlockDepthMax)`,
		"brtable": `function "handle" has a br_table of 500000 targets, over the limit of 16384 (abi.BrTableTargetsMax)`,
	} {
		testenv.Eventually(t, "pod "+name+" to fail", func() bool {
			p := pod(name)
			return p != nil && p.Status.Phase == corev1.PodFailed
		})
		if p := pod(name); p.Status.Reason != host.ReasonModuleLimitExceeded || !strings.Contains(p.Status.Message, want) {
			t.Errorf("pod %s: reason %q message %q, want %s and %q", name, p.Status.Reason, p.Status.Message, host.ReasonModuleLimitExceeded, want)
		}
	}
	// The module within the budgets runs and answers (its k32_handle returns
	// 0 and sets nothing).
	testenv.Eventually(t, "pod within to run", func() bool {
		p := pod("within")
		return p != nil && p.Status.Phase == corev1.PodRunning
	})
	req, _ := http.NewRequest(http.MethodGet, c.PodURL()+"/", nil)
	req.Header.Set(abi.HeaderPod, "default/within")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("pod within answered %d, want 200", resp.StatusCode)
	}
}
