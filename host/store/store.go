// Package store is the cluster's object store: typed Kubernetes objects by
// kind, namespace and name, with resourceVersions and change events. The
// API server, the kubelets and the controllers all read and write it.
package store

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kube32/kube32/host/manifest"
)

// Key identifies one object.
type Key struct {
	Kind, Namespace, Name string
}

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind + " " + k.Name
	}
	return k.Kind + " " + k.Namespace + "/" + k.Name
}

// EventType says what happened to an object.
type EventType string

// Event types, as in a Kubernetes watch.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one change, carrying a copy of the object after it (before it,
// for Deleted).
type Event struct {
	Type   EventType
	Key    Key
	Object runtime.Object
}

// Store holds the cluster's objects. It is safe for concurrent use; objects
// going in and coming out are copies, so callers never share memory with it.
type Store struct {
	mu          sync.Mutex
	version     int64
	objects     map[Key]runtime.Object
	subscribers map[int]*subscriber
	nextSub     int
}

// New returns an empty store.
func New() *Store {
	return &Store{objects: map[Key]runtime.Object{}, subscribers: map[int]*subscriber{}}
}

// KindOf is the kind of a served object, e.g. "Pod".
func KindOf(obj runtime.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	kinds, _, err := manifest.Scheme.ObjectKinds(obj)
	if err != nil || len(kinds) == 0 {
		panic(fmt.Sprintf("store: %T is not a served kind", obj)) // a programming error
	}
	return kinds[0].Kind
}

// KeyOf is the key of obj.
func KeyOf(obj runtime.Object) Key {
	m := obj.(metav1.Object)
	return Key{Kind: KindOf(obj), Namespace: m.GetNamespace(), Name: m.GetName()}
}

// Apply creates obj or replaces the stored object of the same key, keeping
// its uid and creation time, and returns the stored copy.
func (s *Store) Apply(obj runtime.Object) runtime.Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj = obj.DeepCopyObject()
	key := KeyOf(obj)
	setKind(obj)
	meta := obj.(metav1.Object)
	event := Added
	if old, ok := s.objects[key]; ok {
		event = Modified
		oldMeta := old.(metav1.Object)
		meta.SetUID(oldMeta.GetUID())
		meta.SetCreationTimestamp(oldMeta.GetCreationTimestamp())
		meta.SetGeneration(oldMeta.GetGeneration() + 1)
	} else {
		meta.SetUID(types.UID(uuid.NewUUID()))
		meta.SetCreationTimestamp(metav1.NewTime(time.Now()))
		meta.SetGeneration(1)
	}
	s.version++
	meta.SetResourceVersion(strconv.FormatInt(s.version, 10))
	s.objects[key] = obj
	s.notify(Event{Type: event, Key: key, Object: obj})
	return obj.DeepCopyObject()
}

// Version is the store's resourceVersion: it grows with every change, so a
// reader that remembers it can tell whether anything changed since.
func (s *Store) Version() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Update replaces the stored object of obj's key through change, which gets
// a copy of it; nothing happens when the object does not exist or change
// returns false.
func (s *Store) Update(key Key, change func(obj runtime.Object) bool) (runtime.Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects[key]
	if !ok {
		return nil, false
	}
	obj := old.DeepCopyObject()
	if !change(obj) {
		return obj, false
	}
	s.version++
	obj.(metav1.Object).SetResourceVersion(strconv.FormatInt(s.version, 10))
	s.objects[key] = obj
	s.notify(Event{Type: Modified, Key: key, Object: obj})
	return obj.DeepCopyObject(), true
}

// Get returns a copy of the object of key.
func (s *Store) Get(key Key) (runtime.Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects[key]
	if !ok {
		return nil, false
	}
	return obj.DeepCopyObject(), true
}

// List returns copies of the objects of kind in namespace ("" for all),
// sorted by namespace and name.
func (s *Store) List(kind, namespace string) []runtime.Object {
	s.mu.Lock()
	keys := make([]Key, 0)
	for k := range s.objects {
		if k.Kind == kind && (namespace == "" || k.Namespace == namespace) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Namespace != keys[j].Namespace {
			return keys[i].Namespace < keys[j].Namespace
		}
		return keys[i].Name < keys[j].Name
	})
	objs := make([]runtime.Object, len(keys))
	for i, k := range keys {
		objs[i] = s.objects[k].DeepCopyObject()
	}
	s.mu.Unlock()
	return objs
}

// Delete removes the object of key and reports whether it existed.
func (s *Store) Delete(key Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects[key]
	if !ok {
		return false
	}
	delete(s.objects, key)
	s.version++
	s.notify(Event{Type: Deleted, Key: key, Object: obj})
	return true
}

// Subscribe returns a channel of every change from now on, in order, and a
// function that ends the subscription. The store never waits for a slow
// subscriber: events queue up for it instead.
func (s *Store) Subscribe() (<-chan Event, func()) {
	sub := newSubscriber()
	s.mu.Lock()
	id := s.nextSub
	s.nextSub++
	s.subscribers[id] = sub
	s.mu.Unlock()
	var once sync.Once
	return sub.out, func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.subscribers, id)
			s.mu.Unlock()
			sub.close()
		})
	}
}

// notify runs with s.mu held.
func (s *Store) notify(e Event) {
	for _, sub := range s.subscribers {
		sub.push(Event{Type: e.Type, Key: e.Key, Object: e.Object.DeepCopyObject()})
	}
}

func setKind(obj runtime.Object) {
	if gvks, _, err := manifest.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	}
}
