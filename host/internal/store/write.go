package store

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// Apply creates obj or replaces the stored object of the same key, keeping
// its uid and creation time, and returns the stored copy. It never
// conflicts: it is how the cluster itself writes what it owns.
func (s *Store) Apply(obj runtime.Object) runtime.Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj = obj.DeepCopyObject()
	key := KeyOf(obj)
	if old, ok := s.objects.get(key); ok {
		return s.replaceLocked(key, old, obj).DeepCopyObject()
	}
	return s.createLocked(key, obj).DeepCopyObject()
}

// Create stores a new object; ErrAlreadyExists when its key is taken.
func (s *Store) Create(obj runtime.Object) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj = obj.DeepCopyObject()
	key := KeyOf(obj)
	if _, ok := s.objects.get(key); ok {
		return nil, fmt.Errorf("%s: %w", key, ErrAlreadyExists)
	}
	return s.createLocked(key, obj).DeepCopyObject(), nil
}

// Modify replaces the object of key by what change makes of a copy of it,
// atomically: change runs with the store locked (it must not call the
// store) and may fail the write with its error, e.g. ErrConflict when a
// resourceVersion it was given is stale. The uid, creation time and
// deletion timestamp stay; the generation grows when its spec changed; a
// change that changes nothing writes nothing.
func (s *Store) Modify(key Key, change func(cur runtime.Object) (runtime.Object, error)) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects.get(key)
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	obj, err := change(old.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	obj = obj.DeepCopyObject() // change's result may still be referenced by its caller
	if KeyOf(obj) != key {
		return nil, fmt.Errorf("%s: the object's kind, namespace or name cannot change", key)
	}
	oldMeta, meta := old.(metav1.Object), obj.(metav1.Object)
	meta.SetDeletionTimestamp(oldMeta.GetDeletionTimestamp())
	meta.SetDeletionGracePeriodSeconds(oldMeta.GetDeletionGracePeriodSeconds())
	return s.replaceLocked(key, old, obj).DeepCopyObject(), nil
}

// Update replaces the stored object of key through change, which gets a
// copy of it; nothing happens when the object does not exist or change
// returns false. Controllers use it for status and bindings.
func (s *Store) Update(key Key, change func(obj runtime.Object) bool) (runtime.Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects.get(key)
	if !ok {
		return nil, false
	}
	obj := old.DeepCopyObject()
	if !change(obj) {
		return obj, false
	}
	s.version++
	obj.(metav1.Object).SetResourceVersion(strconv.FormatInt(s.version, 10))
	s.objects.put(key, obj)
	s.notify(Event{Type: Modified, Key: key, Object: obj, Previous: old, Version: s.version})
	return obj.DeepCopyObject(), true
}

// Delete removes the object of key and reports whether it existed.
func (s *Store) Delete(key Key) bool {
	_, err := s.DeleteIf(key, nil)
	return err == nil
}

// DeleteIf removes the object of key when check (if any) accepts it, and
// returns the object as it was removed.
func (s *Store) DeleteIf(key Key, check func(cur runtime.Object) error) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects.get(key)
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if check != nil {
		if err := check(obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	s.objects.delete(key)
	s.version++
	obj = obj.DeepCopyObject() // the stored object is never changed: ListShared readers may hold it
	obj.(metav1.Object).SetResourceVersion(strconv.FormatInt(s.version, 10))
	s.notify(Event{Type: Deleted, Key: key, Object: obj, Version: s.version})
	return obj.DeepCopyObject(), nil
}

// createLocked gives obj its identity and stores it; obj is the store's.
func (s *Store) createLocked(key Key, obj runtime.Object) runtime.Object {
	setKind(obj)
	meta := obj.(metav1.Object)
	meta.SetUID(types.UID(uuid.NewUUID()))
	meta.SetCreationTimestamp(metav1.NewTime(time.Now().Truncate(time.Second)))
	meta.SetGeneration(1)
	s.version++
	meta.SetResourceVersion(strconv.FormatInt(s.version, 10))
	s.objects.put(key, obj)
	s.notify(Event{Type: Added, Key: key, Object: obj, Version: s.version})
	return obj
}

// replaceLocked stores obj in place of old, keeping old's identity.
func (s *Store) replaceLocked(key Key, old, obj runtime.Object) runtime.Object {
	setKind(obj)
	oldMeta, meta := old.(metav1.Object), obj.(metav1.Object)
	meta.SetUID(oldMeta.GetUID())
	meta.SetCreationTimestamp(oldMeta.GetCreationTimestamp())
	meta.SetGeneration(oldMeta.GetGeneration())
	if specChanged(old, obj) {
		meta.SetGeneration(oldMeta.GetGeneration() + 1)
	}
	meta.SetResourceVersion(oldMeta.GetResourceVersion())
	if apiequality.Semantic.DeepEqual(old, obj) {
		return old // a no-op write keeps the resourceVersion, as in Kubernetes
	}
	s.version++
	meta.SetResourceVersion(strconv.FormatInt(s.version, 10))
	s.objects.put(key, obj)
	s.notify(Event{Type: Modified, Key: key, Object: obj, Previous: old, Version: s.version})
	return obj
}

// specChanged reports whether what the generation counts changed: the
// object's spec, or for kinds without one everything but metadata and status.
func specChanged(old, obj runtime.Object) bool {
	a, b := reflect.ValueOf(old).Elem(), reflect.ValueOf(obj).Elem()
	if sa := a.FieldByName("Spec"); sa.IsValid() {
		return !apiequality.Semantic.DeepEqual(sa.Interface(), b.FieldByName("Spec").Interface())
	}
	for i := 0; i < a.NumField(); i++ {
		switch a.Type().Field(i).Name {
		case "TypeMeta", "ObjectMeta", "Status":
			continue
		}
		if !apiequality.Semantic.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			return true
		}
	}
	return false
}
