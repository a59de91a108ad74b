//lint:file-ignore SA1019 the kubelet reads core/v1 Endpoints, as the boards serve them (docs/kubectl.md)

package kubelet

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/service"
)

// NewKubernetesSource returns the Source of a kube32 node of a Kubernetes
// cluster (docs/kubernetes.md), reached with cfg: a worker's Source, but
// for Endpoints. Such a cluster's controllers leave node-local pod
// addresses (loopback, or the node's own) out of Endpoints and
// EndpointSlices, and list container pods that kube32 pods cannot reach, so
// the node computes a Service's Endpoints itself from the kube32 pods
// (runtimeClassName abi.RuntimeClassName) it selects, as the control plane
// computes its own.
func NewKubernetesSource(cfg *rest.Config) (Source, error) {
	c := rest.CopyConfig(cfg)
	if c.QPS == 0 {
		c.QPS, c.Burst = 200, 400
	}
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	client, err := newAPIClient(c)
	if err != nil {
		return nil, fmt.Errorf("API server %s: %w", cfg.Host, err)
	}
	s := newAPISource(client)
	s.endpointsFromPods = true
	s.taintsAtCreate = true
	return s, nil
}

// kube32Pods lists the kube32 pods of namespace, through the cache.
func (s *apiSource) kube32Pods(ctx context.Context, namespace string) ([]*corev1.Pod, error) {
	obj, err := s.fetch("pods/"+namespace, func() (any, error) {
		return s.client.pods(namespace).List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	items := obj.(*corev1.PodList).Items
	var out []*corev1.Pod
	for i := range items {
		if IsKube32Pod(&items[i]) {
			out = append(out, &items[i])
		}
	}
	return out, nil
}

// podEndpoints computes svc's Endpoints from the kube32 pods of its
// namespace.
func (s *apiSource) podEndpoints(ctx context.Context, svc *corev1.Service) (*corev1.Endpoints, error) {
	pods, err := s.kube32Pods(ctx, svc.Namespace)
	if err != nil {
		return nil, fmt.Errorf("endpoints %s/%s: pods: %v: %w", svc.Namespace, svc.Name, err, abi.ErrIO)
	}
	return service.EndpointsOf(svc, pods), nil
}

// IsKube32Pod reports whether p runs on kube32 nodes of a Kubernetes
// cluster: its runtime class is abi.RuntimeClassName.
func IsKube32Pod(p *corev1.Pod) bool {
	return p.Spec.RuntimeClassName != nil && *p.Spec.RuntimeClassName == abi.RuntimeClassName
}
