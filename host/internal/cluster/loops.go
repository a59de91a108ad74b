package cluster

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/scheduler"
	"github.com/kube32/kube32/host/internal/store"
)

// runScheduler schedules pods whenever a change may place one, and records
// a FailedScheduling Event for each pod that fits no node. A pass looks at
// every pod, so the events queued meanwhile are taken together into the
// next pass: applying many pods costs a few passes, not one per pod.
func runScheduler(ctx context.Context, s *store.Store, opts scheduler.Options) {
	events, cancel := s.Subscribe()
	defer cancel()
	schedule(s, opts) // what was applied before the subscription
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-events:
			due := mayPlace(e)
			for more := true; more; {
				select {
				case e := <-events:
					due = due || mayPlace(e)
				default:
					more = false
				}
			}
			if due {
				schedule(s, opts)
			}
		}
	}
}

// mayPlace reports whether e can change where pods go: a Node changed, an
// unbound pod came or changed, or a pod ended or went, freeing its room. A
// bound pod's status write can not.
func mayPlace(e store.Event) bool {
	switch e.Key.Kind {
	case kinds.Node:
		return true
	case kinds.Pod:
		p, ok := e.Object.(*corev1.Pod)
		return !ok || e.Type == store.Deleted || p.Spec.NodeName == "" ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	}
	return false
}

func schedule(s *store.Store, opts scheduler.Options) {
	scheduler.Schedule(s, opts)
	pods, _ := s.ListShared(kinds.Pod, "") // read only
	for _, o := range pods {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == scheduler.ReasonUnschedulable {
				// Recording the same message again only counts it: the
				// store stays quiet once every pod has its event.
				recordOnce(s, p, c.Message)
			}
		}
	}
}

// recordOnce records a FailedScheduling event unless the pod has it.
func recordOnce(s *store.Store, p *corev1.Pod, message string) {
	for _, o := range s.List(kinds.Event, p.Namespace) {
		e := o.(*corev1.Event)
		if e.InvolvedObject.UID == p.UID && e.Reason == "FailedScheduling" && e.Message == message {
			return
		}
	}
	s.Record(p, store.EventSource{Component: "default-scheduler"}, corev1.EventTypeWarning, "FailedScheduling", message)
}

// waitForNode waits (briefly) until the kubelet has registered its Node, so
// the first pods are scheduled at once.
func waitForNode(s *store.Store, name string) {
	for i := 0; i < 2500; i++ {
		if _, ok := s.Get(store.Key{Kind: kinds.Node, Name: name}); ok {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// defaultNamespace is the namespace every cluster has.
func defaultNamespace() *corev1.Namespace { return systemNamespace(metav1.NamespaceDefault) }

// systemNamespace is a namespace the cluster makes itself.
func systemNamespace(name string) *corev1.Namespace {
	return &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{abi.LabelNamespaceName: name}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}
