package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// serve refuses to start a pod whose module uses a feature no board runs
// (built by clang and dropped into the image tree past kube32 build), and
// its status says which feature and which function.
func TestServeRefusesAPodUsingAFeatureNoBoardRuns(t *testing.T) {
	root := t.TempDir()
	wasmDir := filepath.Join(root, filepath.FromSlash(images.InRoot(images.Firmware, images.FirmwareWasmDir)))
	manifest := ""
	for _, name := range []string{"simd", "atomics"} {
		testenv.WriteFiles(t, wasmDir, map[string]string{name + ".wasm": string(testpods.Refused(t, name))})
		manifest += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n  restartPolicy: Never\n  containers: [{name: c, image: \"wasm://embedded/" + name + "\"}]\n"
	}
	file := filepath.Join(root, "pods.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--images", root, "-f", file)
	for name, want := range map[string]string{
		"simd":    `function "vec_add" uses simd (v128.load)`,
		"atomics": `function "count_hit" uses threads (i32.atomic.rmw.add)`,
	} {
		var p *corev1.Pod
		testenv.Eventually(t, "pod "+name+" to fail", func() bool {
			o, ok := c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name})
			p, _ = o.(*corev1.Pod)
			return ok && p.Status.Phase == corev1.PodFailed
		})
		if p.Status.Reason != host.ReasonUnsupportedWasmFeature || !strings.Contains(p.Status.Message, want) {
			t.Errorf("pod %s: reason %q message %q, want %s and %q", name, p.Status.Reason, p.Status.Message, host.ReasonUnsupportedWasmFeature, want)
		}
	}
}
