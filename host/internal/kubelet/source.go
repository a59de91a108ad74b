//lint:file-ignore SA1019 the kubelet reads core/v1 Endpoints, as the boards serve them (docs/kubectl.md)

package kubelet

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// Source is everything a kubelet reads and writes of the cluster's
// objects: the control plane's kubelet works on the object store directly
// (StoreSource), a worker's only over HTTP through the API server
// (NewAPISource), as board workers do. Both implement all of it; a
// question a Source cannot answer is an error, and the kubelet denies what
// depends on it.
type Source interface {
	// RegisterNode creates or replaces the node's Node object.
	RegisterNode(ctx context.Context, n *corev1.Node) error
	// RenewLease creates or renews the node's Lease (lease.go) and
	// returns the node's Node as stored, nil when there is none.
	RenewLease(ctx context.Context, lease *coordinationv1.Lease) (*corev1.Node, error)
	// Pods returns the pods bound to node, terminating ones included. They
	// are the Source's own: read them, never change them.
	Pods(node string) []*corev1.Pod
	// Synced reports whether Pods knows the node's pods yet (a worker's
	// first list has arrived): before that the kubelet is not settled.
	Synced() bool
	// Changes signals, coalesced, whenever the pods of node may have
	// changed, until ctx ends.
	Changes(ctx context.Context, node string) <-chan struct{}
	// UpdatePodStatus applies change to the stored pod namespace/name, unless
	// it is no longer the pod with uid and generation.
	UpdatePodStatus(ctx context.Context, namespace, name string, uid types.UID, generation int64, change func(*corev1.Pod)) error
	// DeletePod removes a terminating pod once it has stopped, unless it was
	// replaced meanwhile.
	DeletePod(ctx context.Context, namespace, name string, uid types.UID) error
	// Record records an Event about p (best effort).
	Record(p *corev1.Pod, from store.EventSource, typ, reason, message string)
	// NamespaceServices returns the Services and Endpoints of a namespace,
	// for the Service environment variables.
	NamespaceServices(namespace string) ([]*corev1.Service, []*corev1.Endpoints)

	// The Services, Endpoints and Nodes k32_http_call resolves Services
	// from (service.Resolve).
	service.Objects

	// What NetworkPolicy checks the node's calls against (netpol.go).

	// PodsSynced tells the Source the node's pods at each pod sync, before
	// any of them starts: a worker records their labels and loads the
	// policies of their namespaces.
	PodsSynced(ctx context.Context, pods []*corev1.Pod)
	// Policies returns the NetworkPolicies of namespace, or why the node
	// cannot tell them (a worker that has not loaded them): the calls of
	// the namespace's pods are denied then.
	Policies(namespace string) ([]*networkingv1.NetworkPolicy, error)
	// CallerLabels returns the labels of the calling pod namespace/name.
	CallerLabels(namespace, name string) (map[string]string, bool)
	// NamespaceLabels returns a namespace's labels (nil when unknown).
	NamespaceLabels(ctx context.Context, name string) map[string]string
	// TargetPod reads a pod behind a Service, when a rule compares its
	// labels or port names.
	TargetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
}

var (
	_ Source = (*storeSource)(nil)
	_ Source = (*apiSource)(nil)
)

// StoreSource is the Source of the control plane's kubelet: the object
// store itself.
func StoreSource(s *store.Store) Source {
	return &storeSource{store: s, Objects: service.StoreObjects(s)}
}

type storeSource struct {
	store *store.Store
	service.Objects
}

func (s *storeSource) RegisterNode(_ context.Context, n *corev1.Node) error {
	s.store.Apply(n)
	return nil
}

func (s *storeSource) RenewLease(_ context.Context, lease *coordinationv1.Lease) (*corev1.Node, error) {
	s.store.Apply(lease)
	n, ok := s.store.Get(store.Key{Kind: kinds.Node, Name: lease.Name})
	if !ok {
		return nil, nil
	}
	return n.(*corev1.Node), nil
}

func (s *storeSource) Pods(node string) []*corev1.Pod {
	var out []*corev1.Pod
	pods, _ := s.store.ListShared(kinds.Pod, "") // no copies: the kubelet reads them, every sync and every readiness poll
	for _, o := range pods {
		if p := o.(*corev1.Pod); p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out
}

// Synced is always true: the store is the source of truth.
func (s *storeSource) Synced() bool { return true }

func (s *storeSource) Changes(ctx context.Context, _ string) <-chan struct{} {
	events, cancel := s.store.Subscribe()
	out := make(chan struct{}, 1)
	go func() {
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-events:
				if !ok {
					return
				}
				if e.Key.Kind == kinds.Pod {
					select {
					case out <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	return out
}

func (s *storeSource) UpdatePodStatus(_ context.Context, namespace, name string, uid types.UID, generation int64, change func(*corev1.Pod)) error {
	s.store.Update(store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name}, func(o runtime.Object) bool {
		p := o.(*corev1.Pod)
		if p.UID != uid || p.Generation != generation {
			return false
		}
		change(p)
		return true
	})
	return nil
}

func (s *storeSource) DeletePod(_ context.Context, namespace, name string, uid types.UID) error {
	_, err := s.store.DeleteIf(store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name}, func(o runtime.Object) error {
		if p := o.(*corev1.Pod); p.UID != uid || p.DeletionTimestamp == nil {
			return errReplaced
		}
		return nil
	})
	return err
}

func (s *storeSource) Record(p *corev1.Pod, from store.EventSource, typ, reason, message string) {
	s.store.Record(p, from, typ, reason, message)
}

func (s *storeSource) NamespaceServices(namespace string) ([]*corev1.Service, []*corev1.Endpoints) {
	var services []*corev1.Service
	for _, o := range s.store.List(kinds.Service, namespace) {
		services = append(services, o.(*corev1.Service))
	}
	return services, service.NamespaceEndpoints(s.store, namespace)
}
