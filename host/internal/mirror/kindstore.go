package mirror

import (
	"fmt"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/store"
)

// kindStore is where the reflector of one kind writes (cache.ReflectorStore):
// into the local store, or through put and remove for the kinds the
// mirror decides about as a whole (Ingresses and their class).
type kindStore struct {
	m        *Mirror
	kind     string
	client   *rest.RESTClient
	resource string
	fields   fields.Selector // nil: every object
	example  runtime.Object  // the reflector's expected type
	// keep, when set, says which objects go into the store; the others
	// are left out (and taken out when they change to be left out).
	keep func(runtime.Object) bool
	// put and remove, when set, replace the store writes.
	put    func(runtime.Object)
	remove func(store.Key)

	synced atomic.Bool // Replace ran once
}

func (k *kindStore) Add(obj any) error    { return k.Update(obj) }
func (k *kindStore) Resync() error        { return nil }
func (k *kindStore) Delete(obj any) error { return k.apply(obj, true) }
func (k *kindStore) Update(obj any) error { return k.apply(obj, false) }

func (k *kindStore) apply(obj any, deleted bool) error {
	o, ok := obj.(runtime.Object)
	if !ok {
		return fmt.Errorf("%s: unexpected %T", k.kind, obj)
	}
	o = trim(o)
	key := store.KeyOf(o)
	switch {
	case deleted || (k.keep != nil && !k.keep(o)):
		if k.remove != nil {
			k.remove(key)
		} else {
			k.m.cfg.Store.Delete(key)
		}
	case k.put != nil:
		k.put(o)
	default:
		k.m.cfg.Store.Apply(o)
	}
	return nil
}

// Replace makes the store's objects of the kind those of list: a full
// listing, after which the kind is synced.
func (k *kindStore) Replace(list []any, _ string) error {
	seen := map[store.Key]bool{}
	for _, obj := range list {
		if err := k.Update(obj); err != nil {
			return err
		}
		seen[store.KeyOf(obj.(runtime.Object))] = true
	}
	for _, key := range k.known() {
		if !seen[key] {
			_ = k.apply(k.tombstone(key), true)
		}
	}
	k.synced.Store(true)
	return nil
}

// known are the keys the mirror holds of the kind.
func (k *kindStore) known() []store.Key {
	if k.remove != nil {
		return k.m.knownKeys(k.kind)
	}
	objs, _ := k.m.cfg.Store.ListShared(k.kind, "")
	keys := make([]store.Key, len(objs))
	for i, o := range objs {
		keys[i] = store.KeyOf(o)
	}
	return keys
}

// tombstone is an empty object of the kind with key's name, to delete.
func (k *kindStore) tombstone(key store.Key) runtime.Object {
	o := k.example.DeepCopyObject()
	m := o.(metav1.Object)
	m.SetNamespace(key.Namespace)
	m.SetName(key.Name)
	return o
}

// trim drops what the controller never reads and that only costs memory:
// the managed fields every object carries on a real cluster.
func trim(o runtime.Object) runtime.Object {
	if m, ok := o.(metav1.Object); ok && m.GetManagedFields() != nil {
		o = o.DeepCopyObject()
		o.(metav1.Object).SetManagedFields(nil)
	}
	return o
}
