package kubelet

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// A worker counts a repeated Event on its own copy of it, as a kubelet's
// event correlator does, so that it never reads an Event: a Kubernetes
// cluster's Node authorizer lets a node create and update Events, not get
// them (docs/kubernetes.md). An Event written before the worker started is
// still counted where it may read it (the kube32 control plane).
func TestWorkerCountsRepeatedEventsWithoutReadingThem(t *testing.T) {
	s := store.New()
	api, accepted := apiOf(t, s)
	src, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	s.Apply(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	s.Apply(relayPod("default", "web"))
	o, _ := s.Get(store.Key{Kind: kinds.Pod, Namespace: "default", Name: "web"})
	p := o.(*corev1.Pod)
	from := store.EventSource{Component: "kubelet", Host: "w1"}
	for range 3 {
		src.Record(p, from, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container")
	}
	name := store.PodEvent(p, from, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container", metav1.Now()).Name
	if got := eventCount(t, s, name); got != 3 {
		t.Errorf("Event %s count %d after three records, want 3", name, got)
	}
	if got := accepted("GET /api/v1/namespaces/default/events/" + name); got != "" {
		t.Errorf("the worker read Event %s (Accept %q); it should count on its own copy", name, got)
	}

	// A new worker (a restarted node) finds the Event there and counts on.
	again, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	again.Record(p, from, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container")
	if got := eventCount(t, s, name); got != 4 {
		t.Errorf("Event %s count %d after a restarted worker's record, want 4", name, got)
	}
}

func eventCount(t *testing.T, s *store.Store, name string) int32 {
	t.Helper()
	o, ok := s.Get(store.Key{Kind: kinds.Event, Namespace: "default", Name: name})
	if !ok {
		t.Fatalf("no Event %s", name)
	}
	return o.(*corev1.Event).Count
}

// The copies are bounded: past abi.EventCacheMax the oldest goes first.
func TestEventCacheForgetsTheOldest(t *testing.T) {
	var c eventCache
	for i := range abi.EventCacheMax + 1 {
		c.put(&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprint("e", i)}})
	}
	if _, ok := c.get("default", "e0"); ok {
		t.Error("the oldest Event is still kept past abi.EventCacheMax")
	}
	if _, ok := c.get("default", fmt.Sprint("e", abi.EventCacheMax)); !ok {
		t.Error("the newest Event is not kept")
	}
	if len(c.byKey) != abi.EventCacheMax || len(c.order) != abi.EventCacheMax {
		t.Errorf("%d Events kept (%d in order), want %d", len(c.byKey), len(c.order), abi.EventCacheMax)
	}
}
