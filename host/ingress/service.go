package ingress

import (
	"fmt"
	"net/http"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/host/store"
)

// LocalPods gives the in-process handlers of the pods on the control plane.
type LocalPods interface {
	Handler(namespace, name string) (http.Handler, bool)
}

// endpoint is one running pod behind a Service.
type endpoint struct {
	namespace, name string
	nodeName        string
	targetPort      int32
}

// serviceBackend balances requests round-robin over a Service's running
// pods; with none it answers 503 with Retry-After: 2.
type serviceBackend struct {
	service   string
	endpoints []endpoint
	next      atomic.Uint64
	local     LocalPods
}

func (b *serviceBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for range b.endpoints {
		ep := b.endpoints[int(b.next.Add(1)-1)%len(b.endpoints)]
		// The pod runs on the control plane: call its k32_handle in-process.
		if h, ok := b.local.Handler(ep.namespace, ep.name); ok {
			h.ServeHTTP(w, r)
			return
		}
	}
	w.Header().Set("Retry-After", "2")
	http.Error(w, fmt.Sprintf("service %s has no running pod", b.service), http.StatusServiceUnavailable)
}

// resolveServiceBackend finds the Service a backend names in namespace and
// the running pods it selects, with the target port resolved per pod.
func resolveServiceBackend(s *store.Store, namespace string, ref *networkingv1.IngressServiceBackend, local LocalPods) (*serviceBackend, error) {
	obj, ok := s.Get(store.Key{Kind: "Service", Namespace: namespace, Name: ref.Name})
	b := &serviceBackend{service: namespace + "/" + ref.Name, local: local}
	if !ok {
		return b, fmt.Errorf("service %s/%s not found", namespace, ref.Name)
	}
	svc := obj.(*corev1.Service)
	port, err := servicePort(svc, ref.Port)
	if err != nil {
		return b, err
	}
	for _, p := range SelectPods(s, svc) {
		if target, ok := ResolveTargetPort(port, p); ok {
			b.endpoints = append(b.endpoints, endpoint{namespace: p.Namespace, name: p.Name, nodeName: p.Spec.NodeName, targetPort: target})
		}
	}
	return b, nil
}

// servicePort finds the Service port a backend names by number or by name.
func servicePort(svc *corev1.Service, ref networkingv1.ServiceBackendPort) (corev1.ServicePort, error) {
	for _, p := range svc.Spec.Ports {
		if (ref.Name != "" && p.Name == ref.Name) || (ref.Name == "" && p.Port == ref.Number) {
			return p, nil
		}
	}
	if ref.Name != "" {
		return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port named %q", svc.Namespace, svc.Name, ref.Name)
	}
	return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port %d", svc.Namespace, svc.Name, ref.Number)
}

// SelectPods returns the Running, non-terminating pods of the Service's
// namespace whose labels match its selector (the spec's "Services and
// Endpoints").
func SelectPods(s *store.Store, svc *corev1.Service) []*corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	selector := labels.SelectorFromSet(svc.Spec.Selector)
	var pods []*corev1.Pod
	for _, o := range s.List("Pod", svc.Namespace) {
		p := o.(*corev1.Pod)
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && selector.Matches(labels.Set(p.Labels)) {
			pods = append(pods, p)
		}
	}
	return pods
}

// ResolveTargetPort maps a Service port to a pod's port: targetPort as a
// number, as the name of a containerPort, or by default the port itself.
func ResolveTargetPort(port corev1.ServicePort, p *corev1.Pod) (int32, bool) {
	switch {
	case port.TargetPort.Type == intstr.String && port.TargetPort.StrVal != "":
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == port.TargetPort.StrVal {
					return cp.ContainerPort, true
				}
			}
		}
		return 0, false
	case port.TargetPort.IntVal != 0:
		return port.TargetPort.IntVal, true
	default:
		return port.Port, true
	}
}
