// Package store is the cluster's object store: typed Kubernetes objects by
// kind, namespace and name, with resourceVersions, generations, optimistic
// concurrency and a bounded history of change events that watches resume
// from. The API server, the kubelets and the controllers all read and write
// it.
package store

import (
	"fmt"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/kinds"
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

// Event is one change, carrying a copy of the object after it (as it was
// last, for Deleted, with the resourceVersion of its deletion).
type Event struct {
	Type   EventType
	Key    Key
	Object runtime.Object
	// Previous is the object before a Modified change (nil otherwise), so
	// that a selector-filtered watch can tell a change from an object
	// entering or leaving its selection. It is the store's own object:
	// read it, never change it.
	Previous runtime.Object
	Version  int64 // the store's resourceVersion right after the change
}

// Store holds the cluster's objects. It is safe for concurrent use; objects
// going in and coming out are copies, so callers never share memory with it.
type Store struct {
	mu      sync.Mutex
	version int64
	// published is version as of the last change, set by notify and read
	// without mu by Version, which every request on the Ingress calls.
	published   atomic.Int64
	objects     objects
	subscribers map[int]*subscriber
	nextSub     int
	history     history
}

// New returns an empty store keeping the last abi.WatchHistory change
// events.
func New() *Store { return NewWithHistory(abi.WatchHistory) }

// NewWithHistory returns an empty store keeping the last n change events.
func NewWithHistory(n int) *Store {
	return &Store{objects: objects{}, subscribers: map[int]*subscriber{}, history: history{limit: n}}
}

// kindOf is the kind of a served object, e.g. kinds.Pod.
func kindOf(obj runtime.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	k := kinds.Of(obj)
	if k == "" {
		panic(fmt.Sprintf("store: %T is not a served kind", obj)) // a programming error
	}
	return k
}

// KeyOf is the key of obj.
func KeyOf(obj runtime.Object) Key {
	m := obj.(metav1.Object)
	return Key{Kind: kindOf(obj), Namespace: m.GetNamespace(), Name: m.GetName()}
}

// Version is the store's resourceVersion: it grows with every change, so a
// reader that remembers it can tell whether anything changed since.
func (s *Store) Version() int64 {
	return s.published.Load()
}

// Get returns a copy of the object of key.
func (s *Store) Get(key Key) (runtime.Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects.get(key)
	if !ok {
		return nil, false
	}
	return obj.DeepCopyObject(), true
}

// List returns copies of the objects of kind in namespace ("" for all),
// sorted by namespace and name.
func (s *Store) List(kind, namespace string) []runtime.Object {
	objs, _ := s.ListAt(kind, namespace)
	return objs
}

// ListAt is List together with the store's resourceVersion at the moment of
// the listing, which a watch resumes from.
func (s *Store) ListAt(kind, namespace string) ([]runtime.Object, int64) {
	objs, version := s.ListShared(kind, namespace)
	for i, o := range objs {
		objs[i] = o.DeepCopyObject()
	}
	return objs, version
}

// ListShared is ListAt without the copies: the objects are the store's own,
// which it never changes once stored (every write stores a new object), so
// they are safe to read, e.g. to encode a list, but must not be modified.
func (s *Store) ListShared(kind, namespace string) ([]runtime.Object, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	objs := s.objects.list(kind, namespace)
	return objs, s.version
}

func setKind(obj runtime.Object) {
	if gvks, _, err := kinds.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	}
}
