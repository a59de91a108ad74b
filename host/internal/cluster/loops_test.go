package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/store"
)

// The scheduler passes over every pod only for changes that can place one.
func TestMayPlace(t *testing.T) {
	podEvent := func(typ store.EventType, node string, phase corev1.PodPhase) store.Event {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: phase}}
		return store.Event{Type: typ, Key: store.Key{Kind: "Pod", Namespace: "default", Name: "p"}, Object: p}
	}
	tests := []struct {
		name string
		e    store.Event
		want bool
	}{
		{"a new pod", podEvent(store.Added, "", ""), true},
		{"an unbound pod changed", podEvent(store.Modified, "", corev1.PodPending), true},
		{"a bound pod's status", podEvent(store.Modified, "n", corev1.PodRunning), false},
		{"a bound pod ended", podEvent(store.Modified, "n", corev1.PodSucceeded), true},
		{"a bound pod failed", podEvent(store.Modified, "n", corev1.PodFailed), true},
		{"a pod went", podEvent(store.Deleted, "n", corev1.PodRunning), true},
		{"a node", store.Event{Type: store.Modified, Key: store.Key{Kind: "Node", Name: "n"}, Object: &corev1.Node{}}, true},
		{"a service", store.Event{Type: store.Added, Key: store.Key{Kind: "Service", Name: "s"}, Object: &corev1.Service{}}, false},
	}
	for _, tt := range tests {
		if got := mayPlace(tt.e); got != tt.want {
			t.Errorf("%s: mayPlace = %v, want %v", tt.name, got, tt.want)
		}
	}
}
