package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/apis/metricsv1beta1"
	"github.com/kube32/kube32/host/internal/cluster"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// TestKubectlTop: kubectl top pod and top node print the pods' linear
// memory (as the pods themselves count their pages) and their callbacks'
// CPU, for a pod on the control plane and one on a worker.
func TestKubectlTop(t *testing.T) {
	images := t.TempDir()
	if err := os.CopyFS(images, os.DirFS(echoImages(t))); err != nil {
		t.Fatal(err)
	}
	wasmDir := filepath.Join(images, filepath.FromSlash(imagesWasmDir()))
	if err := os.WriteFile(filepath.Join(wasmDir, "probe.wasm"), testpods.Fixture(t, "probe", 131072), 0o644); err != nil {
		t.Fatal(err)
	}
	// On a board, so that Nodes report memory for MEMORY(%).
	board, err := abi.LookupBoard("esp32s3")
	if err != nil {
		t.Fatal(err)
	}
	// The deadline of every callback: 2 s, not less, or a loaded machine
	// may trap /grow or /hello; /loop spins until it.
	const deadline = 2 * time.Second
	c, err := cluster.Start(context.Background(), cluster.Options{Images: os.DirFS(images), Nodes: 2,
		HandlerTimeout: deadline, Board: &board})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	dir := t.TempDir()
	e := &env{c: c, kubeconfig: filepath.Join(dir, "kubeconfig"), cacheDir: filepath.Join(dir, "cache")}
	if err := kubeconfig.Write(e.kubeconfig, kubeconfig.Entry{Server: c.APIURL()}); err != nil {
		t.Fatal(err)
	}
	podsYAML := filepath.Join(dir, "probes.yaml")
	var manifest strings.Builder
	nodes := map[string]string{"probe-cp": cluster.ControlPlaneName, "probe-w": cluster.WorkerName(1)}
	for name, node := range nodes {
		fmt.Fprintf(&manifest, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, labels: {app: probe}}\nspec:\n  nodeSelector: {kubernetes.io/hostname: %s}\n  containers: [{name: probe, image: \"wasm://embedded/probe\", resources: {limits: {memory: 4Mi}}}]\n", name, node)
	}
	os.WriteFile(podsYAML, []byte(manifest.String()), 0o644)
	e.run(t, false, "apply", "-f", podsYAML)
	running := func(name string) bool {
		o, ok := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
		return ok && o.(*corev1.Pod).Status.Phase == corev1.PodRunning && podReadyCondition(o.(*corev1.Pod))
	}
	for name := range nodes {
		testenv.Eventually(t, name+" to run", func() bool { return running(name) })
	}

	// The pod's own count of its pages, through its node's pod port.
	podURL := func(name string) string {
		u := c.PodURL()
		if nodes[name] != cluster.ControlPlaneName {
			u = strings.Replace(u, "127.0.0.1", "127.0.0.2", 1)
		}
		return u
	}
	call := func(name, path string) testhttp.Reply {
		return testhttp.Do(t, "GET", podURL(name)+path, "", "X-Kube32-Pod: default/"+name)
	}
	pages := map[string]int64{}
	grow := func(name string, n int) {
		for range n {
			r := call(name, "/grow")
			m := regexp.MustCompile(`pages=(\d+)`).FindStringSubmatch(r.Body)
			if r.Status != 200 || m == nil {
				t.Fatalf("%s /grow: %d %q", name, r.Status, r.Body)
			}
			pages[name], _ = strconv.ParseInt(m[1], 10, 64)
		}
	}

	// A callback that spins until its deadline: the pod's CPU time
	// grows by at least that much. The trap restarts the pod.
	if before := cpuSeconds(podMetrics(t, e, "probe-cp")); before >= 0.1 {
		t.Errorf("probe-cp took %.3f s of CPU before any request, want next to none", before)
	}
	call("probe-cp", "/loop")
	testenv.Eventually(t, "probe-cp to run again after its deadline", func() bool { return call("probe-cp", "/hello").Status == 200 })
	if after := cpuSeconds(podMetrics(t, e, "probe-cp")); after < deadline.Seconds()-0.01 {
		t.Errorf("probe-cp's CPU over its window (usage × window) is %.3f s after a %v spin, want at least that", after, deadline)
	}

	grow("probe-cp", 32) // 2 MiB
	grow("probe-w", 48)  // 3 MiB
	for name := range nodes {
		m := podMetrics(t, e, name)
		if got := m.Containers[0].Usage.Memory().Value(); got != pages[name]*65536 {
			t.Errorf("%s: Metrics API memory %d, want %d pages × 64 KiB = %d", name, got, pages[name], pages[name]*65536)
		}
		if m.Window.Duration <= 0 || m.Window.Duration > 2*15*time.Second || m.Labels["app"] != "probe" {
			t.Errorf("%s: window %v, labels %v", name, m.Window.Duration, m.Labels)
		}
	}

	header, rows := table(e.run(t, false, "top", "pod"))
	if strings.Join(header, " ") != "NAME CPU(cores) MEMORY(bytes)" || len(rows) != 2 {
		t.Fatalf("kubectl top pod:\n%q\n%q", header, rows)
	}
	for _, row := range rows {
		if want := fmt.Sprintf("%dMi", pages[row[0]]*65536>>20); row[2] != want {
			t.Errorf("kubectl top pod: %s uses %s, want %s (%d pages)", row[0], row[2], want, pages[row[0]])
		}
		if !regexp.MustCompile(`^\d+m$`).MatchString(row[1]) {
			t.Errorf("kubectl top pod: %s CPU %q", row[0], row[1])
		}
	}

	var nodeMetrics struct{ Items []metricsv1beta1.NodeMetrics }
	if err := json.Unmarshal([]byte(e.run(t, false, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes")), &nodeMetrics); err != nil {
		t.Fatal(err)
	}
	for _, m := range nodeMetrics.Items {
		for name, node := range nodes {
			if node == m.Name && m.Usage.Memory().Value() != pages[name]*65536 {
				t.Errorf("NodeMetrics %s: memory %d, want its one pod's %d", node, m.Usage.Memory().Value(), pages[name]*65536)
			}
		}
	}
	out := e.run(t, false, "top", "node")
	header, rows = table(out)
	if strings.Join(header, " ") != "NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%)" || len(rows) != 2 {
		t.Fatalf("kubectl top node:\n%s", out)
	}
	for name, node := range nodes {
		row := rowOf(rows, node)
		want := fmt.Sprintf("%dMi", pages[name]*65536>>20)
		percent := fmt.Sprintf("%d%%", pages[name]*65536*100/board.PodMemory)
		if row == nil || len(row) != 5 || row[3] != want || row[4] != percent {
			t.Errorf("kubectl top node: %s row %q, want memory %s (its one pod's), %s of the board's pod memory", node, row, want, percent)
		}
	}
}

func podReadyCondition(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func imagesWasmDir() string { return images.InRoot(images.Firmware, images.FirmwareWasmDir) }

func podMetrics(t *testing.T, e *env, name string) metricsv1beta1.PodMetrics {
	t.Helper()
	var m metricsv1beta1.PodMetrics
	out := e.run(t, false, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/"+name)
	if err := json.Unmarshal([]byte(out), &m); err != nil || len(m.Containers) != 1 || m.Kind != "PodMetrics" {
		t.Fatalf("PodMetrics of %s: %v\n%s", name, err, out)
	}
	return m
}

// cpuSeconds is the CPU time a PodMetrics's usage says the pod's callbacks
// took over its window.
func cpuSeconds(m metricsv1beta1.PodMetrics) float64 {
	return m.Containers[0].Usage.Cpu().AsApproximateFloat64() * m.Window.Seconds()
}

func rowOf(rows [][]string, name string) []string {
	for _, r := range rows {
		if r[0] == name {
			return r
		}
	}
	return nil
}
