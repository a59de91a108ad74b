package cli_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// fillPods are pods of the demo's echo image that may grow to 100Ki: on
// esp32 (128Ki of pod memory per node) one fits a node, and none fits the
// control plane, where the demo's echo takes 64Ki. fill-pinned skips the
// scheduler: its node's kubelet must refuse it.
var fillPods = testmanifest.Docs(fillPod("fill-1"), fillPod("fill-2"), fillPod("fill-3"))

func fillPod(name string) string {
	return testmanifest.Pod(name, "echo", "resources: {limits: {memory: 100Ki}}")
}

const pinnedPod = `
apiVersion: v1
kind: Pod
metadata: {name: fill-pinned}
spec:
  nodeName: kube32-control-plane
  containers: [{name: echo, image: wasm://embedded/echo, resources: {limits: {memory: 100Ki}}}]
`

// TestServeBoardBudgets runs serve --board esp32 --nodes 3 and reads
// through kubectl what the board's budgets do: every node's capacity and
// allocatable, pods spread by memory, one that fits no node Pending with
// FailedScheduling "Insufficient memory", and a pod bound past the
// scheduler refused by the kubelet.
func TestServeBoardBudgets(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	t.Chdir(t.TempDir())
	c, _ := testserve.Serve(t, "--board", "esp32", "--nodes", "3")
	cacheDir := t.TempDir()
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--server", c.APIURL(), "--cache-dir", cacheDir, "--request-timeout", "20s"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	var nodes corev1.NodeList
	decode(t, run("", "get", "nodes", "-o", "json"), &nodes)
	if len(nodes.Items) != 3 {
		t.Fatalf("%d nodes, want 3", len(nodes.Items))
	}
	for _, n := range nodes.Items {
		capacity, allocatable := n.Status.Capacity, n.Status.Allocatable
		if capacity.Memory().String() != "520Ki" || allocatable.Memory().String() != "128Ki" ||
			capacity.Pods().String() != "2" || allocatable.Pods().String() != "2" {
			t.Errorf("node %s: capacity %v, allocatable %v; want memory 520Ki/128Ki (esp32's internal RAM, its pod memory) and 2 pods",
				n.Name, capacity, allocatable)
		}
	}

	run(fillPods, "apply", "-f", "-")
	pods := map[string]corev1.Pod{}
	testenv.Eventually(t, "fill-1 and fill-2 running, fill-3 unschedulable", func() bool {
		var list corev1.PodList
		decode(t, run("", "get", "pods", "-o", "json"), &list)
		for _, p := range list.Items {
			pods[p.Name] = p
		}
		return pods["fill-1"].Status.Phase == corev1.PodRunning && pods["fill-2"].Status.Phase == corev1.PodRunning &&
			scheduled(pods["fill-3"]) != nil && scheduled(pods["fill-3"]).Reason == "Unschedulable"
	})
	a, b := pods["fill-1"].Spec.NodeName, pods["fill-2"].Spec.NodeName
	if a == b || a == "kube32-control-plane" || b == "kube32-control-plane" {
		t.Errorf("fill-1 on %s, fill-2 on %s: want one on each worker (the control plane has 64Ki left)", a, b)
	}
	want := "0/3 nodes are available: 3 Insufficient memory."
	if p := pods["fill-3"]; p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending || scheduled(p).Message != want {
		t.Errorf("fill-3: node %q, phase %s, PodScheduled %+v; want Pending with %q", p.Spec.NodeName, p.Status.Phase, scheduled(p), want)
	}
	var events corev1.EventList
	decode(t, run("", "get", "events", "-o", "json"), &events)
	found := false
	for _, e := range events.Items {
		found = found || e.InvolvedObject.Name == "fill-3" && e.Reason == "FailedScheduling" && e.Message == want
	}
	if !found {
		t.Errorf("no FailedScheduling event %q for fill-3 in %d events", want, len(events.Items))
	}

	// Bound by hand to the control plane, past the scheduler: 64Ki + 100Ki
	// exceed its 128Ki, and the kubelet refuses it.
	run(pinnedPod, "apply", "-f", "-")
	var pinned corev1.Pod
	testenv.Eventually(t, "fill-pinned refused", func() bool {
		decode(t, run("", "get", "pod", "fill-pinned", "-o", "json"), &pinned)
		return pinned.Status.Phase == corev1.PodFailed
	})
	if pinned.Status.Reason != "OutOfmemory" || !strings.Contains(pinned.Status.Message, "requested: 102400, used: 65536, capacity: 131072") {
		t.Errorf("fill-pinned: reason %q, message %q; want OutOfmemory with what it asked and what was left", pinned.Status.Reason, pinned.Status.Message)
	}
	// The demo's echo still runs.
	testenv.Eventually(t, "echo still running", func() bool {
		var p corev1.Pod
		decode(t, run("", "get", "pod", "echo", "-o", "json"), &p)
		return p.Status.Phase == corev1.PodRunning
	})
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
}

func scheduled(p corev1.Pod) *corev1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
