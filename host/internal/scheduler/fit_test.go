package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube32/kube32/host/internal/store"
)

// boardNode is a Ready node that reports allocatable memory and pods, as
// nodes do under serve --board.
func boardNode(name, memory string, pods int64) *corev1.Node {
	n := node(name, true, map[string]string{"kubernetes.io/hostname": name})
	n.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
	n.Status.Capacity = n.Status.Allocatable
	return n
}

// withMemory sets the first container's memory request and limit ("" for
// none).
func withMemory(p *corev1.Pod, request, limit string) *corev1.Pod {
	r := &p.Spec.Containers[0].Resources
	if request != "" {
		r.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(request)}
	}
	if limit != "" {
		r.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)}
	}
	return p
}

func boardCluster() *store.Store {
	s := store.New()
	for _, name := range []string{"node-a", "node-b", "node-c"} {
		s.Apply(boardNode(name, "3584Ki", 56))
	}
	return s
}

// TestPodsFillNodesByMemory places pods by their memory requests against
// each node's allocatable memory: three pods of 2 MiB go one to a node,
// and a fourth fits none, with kube-scheduler's message.
func TestPodsFillNodesByMemory(t *testing.T) {
	s := boardCluster()
	for _, name := range []string{"big-1", "big-2", "big-3", "big-4"} {
		s.Apply(withMemory(pod(name, nil), "", "2Mi")) // the limit is the request
	}
	Schedule(s, Options{DefaultMemoryLimit: 8 << 20})
	nodes := map[string]bool{}
	for _, name := range []string{"big-1", "big-2", "big-3"} {
		nodes[get(t, s, name).Spec.NodeName] = true
	}
	if len(nodes) != 3 || nodes[""] {
		t.Errorf("big-1..3 on nodes %v, want one on each of the three", nodes)
	}
	p := get(t, s, "big-4")
	c := scheduledCondition(p)
	if p.Spec.NodeName != "" || c == nil || c.Reason != ReasonUnschedulable {
		t.Fatalf("big-4 on %q with %+v, want Unschedulable", p.Spec.NodeName, c)
	}
	if want := "0/3 nodes are available: 3 Insufficient memory."; c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	// A pod small enough for what is left still fits.
	s.Apply(withMemory(pod("small", nil), "1Mi", "1Mi"))
	Schedule(s, Options{DefaultMemoryLimit: 8 << 20})
	if get(t, s, "small").Spec.NodeName == "" {
		t.Error("a 1 MiB pod found no node, with 1.5 MiB free on each")
	}
}

// TestMemoryRequestDefaults: a request counts, else the limit, else the
// default memory limit; finished pods count nothing.
func TestMemoryRequestDefaults(t *testing.T) {
	s := store.New()
	s.Apply(boardNode("node-a", "1Mi", 56))
	done := withMemory(pod("done", nil), "", "1Mi")
	done.Spec.NodeName, done.Status.Phase = "node-a", corev1.PodSucceeded
	s.Apply(done)
	// Requests 256 KiB though it may grow to 4 MiB: it fits by its request.
	s.Apply(withMemory(pod("a-requested", nil), "256Ki", "4Mi"))
	// Neither: it counts as the default memory limit, 8 MiB, and fits none.
	s.Apply(pod("b-unlimited", nil))
	Schedule(s, Options{DefaultMemoryLimit: 8 << 20})
	if got := get(t, s, "a-requested").Spec.NodeName; got != "node-a" {
		t.Errorf("a pod requesting 256Ki went to %q, want node-a (the finished pod holds nothing)", got)
	}
	c := scheduledCondition(get(t, s, "b-unlimited"))
	if c == nil || c.Message != "0/1 nodes are available: 1 Insufficient memory." {
		t.Errorf("a pod without request or limit: %+v, want Insufficient memory (it counts as the default limit)", c)
	}
}

// TestTooManyPodsAndMixedReasons: a node's allocatable pods bound it too,
// and a message with several reasons counts each, sorted.
func TestTooManyPodsAndMixedReasons(t *testing.T) {
	s := store.New()
	s.Apply(boardNode("node-a", "128Ki", 1))
	s.Apply(boardNode("node-b", "128Ki", 56))
	sensor := node("node-c", true, map[string]string{"sensor": "bme280"})
	s.Apply(sensor)
	first := withMemory(pod("a-first", map[string]string{"kubernetes.io/hostname": "node-a"}), "", "64Ki")
	s.Apply(first)
	Schedule(s, Options{})
	if got := get(t, s, "a-first").Spec.NodeName; got != "node-a" {
		t.Fatalf("a-first on %q, want node-a", got)
	}
	s.Apply(withMemory(pod("b-second", nil), "", "512Ki"))
	Schedule(s, Options{})
	p := get(t, s, "b-second")
	// node-c reports no allocatable memory (no board) and so holds any
	// pod: the pod goes there.
	if p.Spec.NodeName != "node-c" {
		t.Fatalf("b-second on %q, want node-c, which reports no limits", p.Spec.NodeName)
	}
	s.Delete(store.KeyOf(sensor))
	s.Apply(withMemory(pod("d-fourth", nil), "", "512Ki"))
	Schedule(s, Options{})
	c := scheduledCondition(get(t, s, "d-fourth"))
	// node-a is short of both, node-b of memory.
	if want := "0/2 nodes are available: 2 Insufficient memory, 1 Too many pods."; c == nil || c.Message != want {
		t.Errorf("condition %+v, want message %q", c, want)
	}
}
