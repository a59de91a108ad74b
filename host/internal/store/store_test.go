package store

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
}

func TestApplyKeepsIdentityAndBumpsVersions(t *testing.T) {
	s := New()
	first := s.Apply(pod("a")).(*corev1.Pod)
	same := s.Apply(pod("a")).(*corev1.Pod)
	if same.ResourceVersion != first.ResourceVersion || same.Generation != 1 {
		t.Fatalf("a no-op apply wrote: rv %s -> %s, generation %d", first.ResourceVersion, same.ResourceVersion, same.Generation)
	}
	changed := pod("a")
	changed.Spec.NodeName = "n"
	second := s.Apply(changed).(*corev1.Pod)
	if first.UID == "" || first.UID != second.UID {
		t.Fatalf("uid changed: %q -> %q", first.UID, second.UID)
	}
	if first.ResourceVersion == second.ResourceVersion || second.Generation != 2 {
		t.Fatalf("versions: rv %s -> %s, generation %d", first.ResourceVersion, second.ResourceVersion, second.Generation)
	}
	if second.Kind != "Pod" || second.APIVersion != "v1" {
		t.Fatalf("type meta = %v", second.TypeMeta)
	}
}

func TestStoredObjectsAreCopies(t *testing.T) {
	s := New()
	p := pod("a")
	s.Apply(p)
	p.Labels = map[string]string{"changed": "outside"}
	got, _ := s.Get(Key{"Pod", "default", "a"})
	if len(got.(*corev1.Pod).Labels) != 0 {
		t.Fatal("the store shares memory with its caller")
	}
}

func TestListIsSortedAndFiltered(t *testing.T) {
	s := New()
	for _, n := range []string{"c", "a", "b"} {
		s.Apply(pod(n))
	}
	other := pod("z")
	other.Namespace = "other"
	s.Apply(other)
	var names []string
	for _, o := range s.List("Pod", "default") {
		names = append(names, o.(*corev1.Pod).Name)
	}
	if got := len(names); got != 3 || names[0] != "a" || names[2] != "c" {
		t.Fatalf("names = %v", names)
	}
	if got := len(s.List("Pod", "")); got != 4 {
		t.Fatalf("all namespaces: %d objects", got)
	}
}

// A subscriber that calls back into the store while events pile up must not
// deadlock it.
func TestSlowSubscriberCallingBackDoesNotBlock(t *testing.T) {
	s := New()
	events, cancel := s.Subscribe()
	defer cancel()
	for i := 0; i < 1000; i++ {
		s.Update(Key{"Pod", "default", "a"}, func(runtime.Object) bool { return true })
		s.Apply(pod("a"))
	}
	seen := 0
	for seen < 1000 {
		select {
		case e := <-events:
			if _, ok := s.Get(e.Key); !ok {
				t.Fatal("object missing")
			}
			seen++
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d events", seen)
		}
	}
}

func TestUpdateAndDelete(t *testing.T) {
	s := New()
	s.Apply(pod("a"))
	key := Key{"Pod", "default", "a"}
	s.Update(key, func(o runtime.Object) bool {
		o.(*corev1.Pod).Status.Phase = corev1.PodRunning
		return true
	})
	got, _ := s.Get(key)
	if got.(*corev1.Pod).Status.Phase != corev1.PodRunning {
		t.Fatal("status not updated")
	}
	if !s.Delete(key) || s.Delete(key) {
		t.Fatal("delete should succeed once")
	}
}
