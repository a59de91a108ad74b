package cluster

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/scheduler"
	"github.com/kube32/kube32/host/store"
)

// runScheduler schedules pods whenever a Pod or Node changes.
func runScheduler(ctx context.Context, s *store.Store) {
	events, cancel := s.Subscribe()
	defer cancel()
	scheduler.Schedule(s) // what was applied before the subscription
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-events:
			if e.Key.Kind == "Pod" || e.Key.Kind == "Node" {
				scheduler.Schedule(s)
			}
		}
	}
}

// waitForNode waits (briefly) until the kubelet has registered its Node, so
// the first pods are scheduled at once.
func waitForNode(s *store.Store, name string) {
	for i := 0; i < 500; i++ {
		if _, ok := s.Get(store.Key{Kind: "Node", Name: name}); ok {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// defaultNamespace is the namespace every cluster has.
func defaultNamespace() *corev1.Namespace {
	return &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: metav1.NamespaceDefault, Labels: map[string]string{"kubernetes.io/metadata.name": metav1.NamespaceDefault}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}
