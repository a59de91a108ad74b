package scheduler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/store"
)

func node(name string, ready bool, nodeLabels map[string]string) *corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}},
	}
}

func pod(name string, selector map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{NodeSelector: selector,
			Containers: []corev1.Container{{Name: "c", Image: "wasm://embedded/" + name}}},
	}
}

func get(t *testing.T, s *store.Store, name string) *corev1.Pod {
	t.Helper()
	o, ok := s.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
	if !ok {
		t.Fatalf("pod %s is gone", name)
	}
	return o.(*corev1.Pod)
}

func scheduledCondition(p *corev1.Pod) *corev1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// cluster is the control plane and two workers, one of them with a sensor.
func cluster() *store.Store {
	s := store.New()
	s.Apply(node("kube32-control-plane", true, map[string]string{"node-role.kubernetes.io/control-plane": "", "kubernetes.io/hostname": "kube32-control-plane"}))
	s.Apply(node("worker-a", true, map[string]string{"kubernetes.io/hostname": "worker-a", "sensor": "bme280"}))
	s.Apply(node("worker-b", true, map[string]string{"kubernetes.io/hostname": "worker-b"}))
	s.Apply(node("worker-down", false, map[string]string{"kubernetes.io/hostname": "worker-down", "sensor": "bme280"}))
	return s
}

func TestNodeSelectorMatching(t *testing.T) {
	s := cluster()
	s.Apply(pod("cp", map[string]string{"node-role.kubernetes.io/control-plane": ""})) // an empty label value matches
	s.Apply(pod("sensor", map[string]string{"sensor": "bme280"}))
	s.Apply(pod("pinned", map[string]string{"kubernetes.io/hostname": "worker-b"}))
	Schedule(s, Options{})
	for name, want := range map[string]string{"cp": "kube32-control-plane", "sensor": "worker-a", "pinned": "worker-b"} {
		p := get(t, s, name)
		if p.Spec.NodeName != want {
			t.Errorf("pod %s bound to %q, want %q (a Ready node whose labels match its nodeSelector)", name, p.Spec.NodeName, want)
		}
		if c := scheduledCondition(p); c == nil || c.Status != corev1.ConditionTrue {
			t.Errorf("pod %s: PodScheduled condition %+v, want True", name, c)
		}
	}
}

func TestSpreadingByLoad(t *testing.T) {
	s := cluster()
	// Two pods already run on the control plane and one on worker-a.
	for i, n := range []string{"kube32-control-plane", "kube32-control-plane", "worker-a"} {
		p := pod("running-"+string(rune('a'+i)), nil)
		p.Spec.NodeName = n
		s.Apply(p)
	}
	for _, name := range []string{"new-1", "new-2", "new-3", "new-4"} {
		s.Apply(pod(name, nil))
	}
	Schedule(s, Options{})
	load := map[string]int{}
	for _, o := range s.List("Pod", "") {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName == "" {
			t.Fatalf("pod %s left unbound", p.Name)
		}
		load[p.Spec.NodeName]++
	}
	// Seven pods over three Ready nodes, each new pod on the least loaded
	// matching node (by name on ties), never on the node that is not Ready:
	// new-1 worker-b, new-2 worker-a, new-3 worker-b, new-4 the control plane.
	want := map[string]int{"kube32-control-plane": 3, "worker-a": 2, "worker-b": 2}
	if len(load) != len(want) || load["kube32-control-plane"] != 3 || load["worker-a"] != 2 || load["worker-b"] != 2 {
		t.Errorf("pods per node %v, want %v", load, want)
	}
	// The least loaded node gets the first new pod: worker-b had none.
	if got := get(t, s, "new-1").Spec.NodeName; got != "worker-b" {
		t.Errorf("new-1 went to %s, want worker-b (the least loaded)", got)
	}
}

func TestFinishedPodsAreNoLoad(t *testing.T) {
	s := store.New()
	s.Apply(node("node-a", true, nil))
	s.Apply(node("node-b", true, nil))
	// node-a holds two pods that have finished, node-b one that runs.
	for name, phase := range map[string]corev1.PodPhase{"done": corev1.PodSucceeded, "crashed": corev1.PodFailed} {
		p := pod(name, nil)
		p.Spec.NodeName, p.Status.Phase = "node-a", phase
		s.Apply(p)
	}
	running := pod("running", nil)
	running.Spec.NodeName, running.Status.Phase = "node-b", corev1.PodRunning
	s.Apply(running)
	s.Apply(pod("new", nil))
	Schedule(s, Options{})
	if got := get(t, s, "new").Spec.NodeName; got != "node-a" {
		t.Errorf("new pod went to %s, want node-a, which runs nothing", got)
	}
}

func TestUnschedulablePodStaysPendingWithAMessage(t *testing.T) {
	s := cluster()
	s.Apply(pod("gpu", map[string]string{"accelerator": "tpu", "zone": "lab"}))
	Schedule(s, Options{})
	p := get(t, s, "gpu")
	if p.Spec.NodeName != "" {
		t.Fatalf("bound to %s, want unbound", p.Spec.NodeName)
	}
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase %q, want Pending", p.Status.Phase)
	}
	c := scheduledCondition(p)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != ReasonUnschedulable {
		t.Fatalf("PodScheduled condition %+v, want False with reason Unschedulable", c)
	}
	for _, want := range []string{"0/3 nodes are available", "accelerator=tpu,zone=lab"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q lacks %q", c.Message, want)
		}
	}
	// Scheduling again changes nothing (no endless status writes).
	rv := p.ResourceVersion
	Schedule(s, Options{})
	if got := get(t, s, "gpu").ResourceVersion; got != rv {
		t.Errorf("a second Schedule rewrote the unchanged pod (resourceVersion %s -> %s)", rv, got)
	}
	// A node that matches arrives: the pod is bound.
	s.Apply(node("worker-tpu", true, map[string]string{"accelerator": "tpu", "zone": "lab"}))
	Schedule(s, Options{})
	p = get(t, s, "gpu")
	if p.Spec.NodeName != "worker-tpu" {
		t.Fatalf("after a matching node joined: bound to %q, want worker-tpu", p.Spec.NodeName)
	}
	if c := scheduledCondition(p); c == nil || c.Status != corev1.ConditionTrue || c.Reason != "" {
		t.Errorf("after binding: PodScheduled %+v, want True without a reason", c)
	}
}

func TestNoReadyNodeLeavesPodsUnschedulable(t *testing.T) {
	s := store.New()
	s.Apply(node("down", false, nil))
	s.Apply(pod("web", nil))
	Schedule(s, Options{})
	p := get(t, s, "web")
	if c := scheduledCondition(p); p.Spec.NodeName != "" || c == nil || c.Reason != ReasonUnschedulable {
		t.Fatalf("node %q condition %+v, want unbound and Unschedulable", p.Spec.NodeName, c)
	}
}

func TestAllPlaced(t *testing.T) {
	s := cluster()
	if !AllPlaced(s) {
		t.Fatal("no pods: AllPlaced = false")
	}
	s.Apply(pod("web", nil))
	s.Apply(pod("gpu", map[string]string{"accelerator": "tpu"}))
	if AllPlaced(s) {
		t.Fatal("unbound pods before Schedule: AllPlaced = true")
	}
	Schedule(s, Options{})
	if !AllPlaced(s) {
		t.Fatal("every pod bound or Unschedulable: AllPlaced = false")
	}
	// A deleted-but-terminating unbound pod does not hold it up.
	leaving := pod("leaving", nil)
	leaving.DeletionTimestamp = &metav1.Time{}
	leaving.Finalizers = []string{"test"}
	s.Apply(leaving)
	if !AllPlaced(s) {
		t.Fatal("a terminating unbound pod: AllPlaced = false")
	}
	s.Apply(pod("late", nil))
	if AllPlaced(s) {
		t.Fatal("a new unbound pod: AllPlaced = true")
	}
}
