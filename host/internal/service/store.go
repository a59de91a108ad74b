package service

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, deprecated upstream since v1.33

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// StoreObjects returns the Objects of the control plane: its object store,
// with the Endpoints computed from the pods as the API server serves them.
// It keeps what it read until the store changes, so that a busy caller
// does not scan the pods at every call.
func StoreObjects(s *store.Store) Objects { return &storeObjects{store: s} }

type storeObjects struct {
	store *store.Store

	mu      sync.Mutex
	version int64          // the store version cache was read at
	cache   map[string]any // by "svc/<ns>/<name>", "ep/<ns>/<name>", "node/<name>"
}

// read returns what get answers for key, from the cache while the store
// has not changed since.
func (o *storeObjects) read(key string, get func() any) any {
	version := o.store.Version()
	o.mu.Lock()
	if version > o.version || o.cache == nil {
		o.version, o.cache = version, map[string]any{}
	}
	v, ok := o.cache[key]
	o.mu.Unlock()
	if ok {
		return v
	}
	v = get()
	o.mu.Lock()
	if o.version == version {
		o.cache[key] = v
	}
	o.mu.Unlock()
	return v
}

func (o *storeObjects) Service(_ context.Context, namespace, name string) (*corev1.Service, error) {
	svc := o.read("svc/"+namespace+"/"+name, func() any {
		obj, ok := o.store.Get(store.Key{Kind: kinds.Service, Namespace: namespace, Name: name})
		if !ok {
			return (*corev1.Service)(nil)
		}
		return obj.(*corev1.Service)
	}).(*corev1.Service)
	if svc == nil {
		return nil, fmt.Errorf("service %s/%s: %w", namespace, name, ErrNoService)
	}
	return svc, nil
}

func (o *storeObjects) Endpoints(_ context.Context, svc *corev1.Service) (*corev1.Endpoints, error) {
	return o.read("ep/"+svc.Namespace+"/"+svc.Name, func() any {
		objs, _ := o.store.ListShared(kinds.Pod, svc.Namespace) // only read
		pods := make([]*corev1.Pod, len(objs))
		for i, obj := range objs {
			pods[i] = obj.(*corev1.Pod)
		}
		return endpoints(svc, pods)
	}).(*corev1.Endpoints), nil
}

func (o *storeObjects) Node(_ context.Context, name string) (*corev1.Node, error) {
	return o.read("node/"+name, func() any {
		obj, ok := o.store.Get(store.Key{Kind: kinds.Node, Name: name})
		if !ok {
			return (*corev1.Node)(nil)
		}
		return obj.(*corev1.Node)
	}).(*corev1.Node), nil
}
