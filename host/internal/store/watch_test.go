package store

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func next(t *testing.T, events <-chan Event) Event {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
		return Event{}
	}
}

func TestWatchResumesFromAResourceVersion(t *testing.T) {
	s := New()
	s.Apply(pod("a"))
	_, from := s.ListAt("Pod", "")
	s.Apply(pod("b"))
	s.Delete(Key{"Pod", "default", "a"})
	events, cancel, err := s.Watch(from)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	if e := next(t, events); e.Type != Added || e.Key.Name != "b" || e.Version != from+1 {
		t.Fatalf("first event = %v %v %d", e.Type, e.Key, e.Version)
	}
	e := next(t, events)
	if e.Type != Deleted || e.Key.Name != "a" || e.Object.(*corev1.Pod).ResourceVersion != "3" {
		t.Fatalf("second event = %v %v rv %s", e.Type, e.Key, e.Object.(*corev1.Pod).ResourceVersion)
	}
	s.Apply(pod("c"))
	if e := next(t, events); e.Key.Name != "c" {
		t.Fatalf("live event = %v", e.Key)
	}
}

func TestWatchTooOldIsGone(t *testing.T) {
	s := NewWithHistory(2)
	for _, n := range []string{"a", "b", "c", "d"} {
		s.Apply(pod(n))
	}
	if _, _, err := s.Watch(1); !errors.Is(err, ErrGone) {
		t.Fatalf("watch from 1 with 2 events kept: %v", err)
	}
	events, cancel, err := s.Watch(2)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	if e := next(t, events); e.Key.Name != "c" {
		t.Fatalf("first kept event = %v", e.Key)
	}
}

func TestCreateModifyAndConflicts(t *testing.T) {
	s := New()
	if _, err := s.Create(pod("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(pod("a")); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second create: %v", err)
	}
	key := Key{"Pod", "default", "a"}
	stale := errors.New("stale")
	before, _ := s.Get(key)
	if _, err := s.Modify(key, func(runtime.Object) (runtime.Object, error) { return nil, stale }); err != stale {
		t.Fatalf("modify error = %v", err)
	}
	if after, _ := s.Get(key); after.(*corev1.Pod).ResourceVersion != before.(*corev1.Pod).ResourceVersion {
		t.Fatal("a failed modify wrote")
	}
	got, err := s.Modify(key, func(o runtime.Object) (runtime.Object, error) {
		o.(*corev1.Pod).Labels = map[string]string{"x": "y"}
		return o, nil
	})
	if err != nil || got.(*corev1.Pod).Generation != 1 || got.(*corev1.Pod).Labels["x"] != "y" {
		t.Fatalf("label change: %v generation %d", err, got.(*corev1.Pod).Generation)
	}
	if _, err := s.Modify(Key{"Pod", "default", "nope"}, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("modify missing: %v", err)
	}
}
