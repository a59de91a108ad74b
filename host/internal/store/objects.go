package store

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
)

// objects holds the stored objects by kind, so that listing one kind costs
// the objects of that kind, not of the whole store, and keeps each kind's
// keys sorted between creations and deletions, so that a list after status
// writes sorts nothing.
type objects map[string]*kindObjects

type kindObjects struct {
	byKey  map[Key]runtime.Object
	sorted []Key // by namespace and name; nil when a key came or went since
}

func (o objects) get(key Key) (runtime.Object, bool) {
	k, ok := o[key.Kind]
	if !ok {
		return nil, false
	}
	obj, ok := k.byKey[key]
	return obj, ok
}

// put stores obj under key, in place of any object there.
func (o objects) put(key Key, obj runtime.Object) {
	k, ok := o[key.Kind]
	if !ok {
		k = &kindObjects{byKey: map[Key]runtime.Object{}}
		o[key.Kind] = k
	}
	if _, ok := k.byKey[key]; !ok {
		k.sorted = nil
	}
	k.byKey[key] = obj
}

func (o objects) delete(key Key) {
	if k, ok := o[key.Kind]; ok {
		delete(k.byKey, key)
		k.sorted = nil
	}
}

// list returns the objects of kind in namespace ("" for all), sorted by
// namespace and name.
func (o objects) list(kind, namespace string) []runtime.Object {
	k, ok := o[kind]
	if !ok {
		return []runtime.Object{}
	}
	if k.sorted == nil {
		k.sorted = make([]Key, 0, len(k.byKey))
		for key := range k.byKey {
			k.sorted = append(k.sorted, key)
		}
		sort.Slice(k.sorted, func(i, j int) bool {
			a, b := k.sorted[i], k.sorted[j]
			if a.Namespace != b.Namespace {
				return a.Namespace < b.Namespace
			}
			return a.Name < b.Name
		})
	}
	keys := k.sorted
	if namespace != "" {
		// The keys of one namespace are consecutive.
		from := sort.Search(len(keys), func(i int) bool { return keys[i].Namespace >= namespace })
		to := sort.Search(len(keys), func(i int) bool { return keys[i].Namespace > namespace })
		keys = keys[from:to]
	}
	objs := make([]runtime.Object, len(keys))
	for i, key := range keys {
		objs[i] = k.byKey[key]
	}
	return objs
}
