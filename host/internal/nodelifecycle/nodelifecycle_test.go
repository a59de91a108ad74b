package nodelifecycle

import (
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/store"
)

func node(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}}}}
}

func lease(name string, renewed time.Time) *coordinationv1.Lease {
	t := metav1.NewMicroTime(renewed)
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: abi.NamespaceNodeLease, Name: name},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &name, RenewTime: &t}}
}

func readyPod(name, nodeName string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PodSpec{NodeName: nodeName},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
}

func readyCondition(t *testing.T, s *store.Store, kind, namespace, name string) (corev1.ConditionStatus, string, string) {
	t.Helper()
	o, ok := s.Get(store.Key{Kind: kind, Namespace: namespace, Name: name})
	if !ok {
		t.Fatalf("%s %s is gone", kind, name)
	}
	switch o := o.(type) {
	case *corev1.Node:
		for _, c := range o.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status, c.Reason, c.Message
			}
		}
	case *corev1.Pod:
		for _, c := range o.Status.Conditions {
			if c.Type == corev1.PodReady {
				return c.Status, c.Reason, c.Message
			}
		}
	}
	return "", "", ""
}

// A node whose Lease stops changing is Ready=Unknown once the grace
// period has passed since the controller last saw it change, by the
// controller's clock; its pods, and only its, become not Ready.
func TestSilentNodeIsUnknown(t *testing.T) {
	s := store.New()
	start := time.Now()
	s.Apply(node("quiet"))
	s.Apply(node("alive"))
	s.Apply(lease("quiet", start))
	s.Apply(lease("alive", start))
	s.Apply(readyPod("q", "quiet"))
	s.Apply(readyPod("a", "alive"))
	const grace = 40 * time.Second
	c := newController(Config{Store: s, Grace: grace, Logf: t.Logf})

	c.monitor(start)
	s.Apply(lease("alive", start.Add(grace)))
	c.monitor(start.Add(grace)) // exactly the grace: not yet
	if st, _, _ := readyCondition(t, s, "Node", "", "quiet"); st != corev1.ConditionTrue {
		t.Fatalf("quiet node after exactly the grace period: Ready=%s, want True", st)
	}
	s.Apply(lease("alive", start.Add(grace+time.Second)))
	c.monitor(start.Add(grace + time.Second))

	st, reason, message := readyCondition(t, s, "Node", "", "quiet")
	if st != corev1.ConditionUnknown || reason != "NodeStatusUnknown" || message != "Kubelet stopped posting node status." {
		t.Errorf("quiet node: Ready=%s reason %q message %q, want Unknown, NodeStatusUnknown, Kubelet stopped posting node status.", st, reason, message)
	}
	if st, _, _ := readyCondition(t, s, "Pod", "default", "q"); st != corev1.ConditionFalse {
		t.Errorf("pod of the quiet node: Ready=%s, want False", st)
	}
	if st, _, _ := readyCondition(t, s, "Node", "", "alive"); st != corev1.ConditionTrue {
		t.Errorf("node that renews its lease: Ready=%s, want True", st)
	}
	if st, _, _ := readyCondition(t, s, "Pod", "default", "a"); st != corev1.ConditionTrue {
		t.Errorf("pod of the node that renews its lease: Ready=%s, want True", st)
	}
	var events []string
	for _, o := range s.List("Event", "default") {
		e := o.(*corev1.Event)
		events = append(events, e.InvolvedObject.Name+" "+e.Reason)
	}
	if len(events) != 1 || events[0] != "q NodeNotReady" {
		t.Errorf("events %q, want one NodeNotReady for pod q", events)
	}

	// Marking again changes nothing: the store stays quiet.
	v := s.Version()
	c.monitor(start.Add(2 * grace))
	if s.Version() != v {
		t.Errorf("monitoring a node already Unknown wrote to the store")
	}
}

// A node with no Lease at all gets the whole grace period from when the
// controller first sees it.
func TestNodeWithoutLease(t *testing.T) {
	s := store.New()
	s.Apply(node("new"))
	c := newController(Config{Store: s, Grace: time.Second})
	start := time.Now()
	c.monitor(start)
	c.monitor(start.Add(time.Second))
	if st, _, _ := readyCondition(t, s, "Node", "", "new"); st != corev1.ConditionTrue {
		t.Fatalf("node without lease within the grace: Ready=%s, want True", st)
	}
	c.monitor(start.Add(2 * time.Second))
	if st, _, _ := readyCondition(t, s, "Node", "", "new"); st != corev1.ConditionUnknown {
		t.Errorf("node without lease past the grace: Ready=%s, want Unknown", st)
	}
}

// Deleting a Node deletes its pods and its Lease, and no other.
func TestDeletedNodeTakesItsPods(t *testing.T) {
	s := store.New()
	s.Apply(node("gone"))
	s.Apply(lease("gone", time.Now()))
	s.Apply(readyPod("g1", "gone"))
	s.Apply(readyPod("g2", "gone"))
	s.Apply(readyPod("other", "elsewhere"))
	s.Apply(readyPod("pending", ""))
	c := newController(Config{Store: s})
	s.Delete(store.Key{Kind: "Node", Name: "gone"})
	c.collect("gone")
	for _, name := range []string{"g1", "g2"} {
		if _, ok := s.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name}); ok {
			t.Errorf("pod %s of the deleted node is still there", name)
		}
	}
	for _, name := range []string{"other", "pending"} {
		if _, ok := s.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name}); !ok {
			t.Errorf("pod %s of no or another node was deleted", name)
		}
	}
	if _, ok := s.Get(store.Key{Kind: "Lease", Namespace: abi.NamespaceNodeLease, Name: "gone"}); ok {
		t.Error("the deleted node's Lease is still there")
	}
}
