package kubelet

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/host/internal/store"
)

// The control plane's kubelet reads policies, pods and namespaces from the
// object store at every call: a change applies from the next call.

// PodsSynced has nothing to do: the store holds every pod's labels and
// every namespace's policies.
func (s *storeSource) PodsSynced(context.Context, []*corev1.Pod) {}

func (s *storeSource) Policies(namespace string) ([]*networkingv1.NetworkPolicy, error) {
	objs, _ := s.store.ListShared("NetworkPolicy", namespace) // only read
	out := make([]*networkingv1.NetworkPolicy, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*networkingv1.NetworkPolicy))
	}
	return out, nil
}

func (s *storeSource) CallerLabels(namespace, name string) (map[string]string, bool) {
	o, ok := s.store.Get(store.Key{Kind: "Pod", Namespace: namespace, Name: name})
	if !ok {
		return nil, false
	}
	return o.(*corev1.Pod).Labels, true
}

func (s *storeSource) NamespaceLabels(_ context.Context, name string) map[string]string {
	o, ok := s.store.Get(store.Key{Kind: "Namespace", Name: name})
	if !ok {
		return nil
	}
	return o.(*corev1.Namespace).Labels
}

func (s *storeSource) TargetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	o, ok := s.store.Get(store.Key{Kind: "Pod", Namespace: namespace, Name: name})
	if !ok {
		return nil, fmt.Errorf("pod %s/%s not found", namespace, name)
	}
	return o.(*corev1.Pod), nil
}
