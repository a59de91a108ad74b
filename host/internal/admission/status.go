package admission

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// statusOf is a kind's status field, which its strategy resets on create
// and copies on update.
type statusOf[T runtime.Object, S any] func(T) *S

var (
	namespaceStatus statusOf[*corev1.Namespace, corev1.NamespaceStatus]         = func(o *corev1.Namespace) *corev1.NamespaceStatus { return &o.Status }
	nodeStatus      statusOf[*corev1.Node, corev1.NodeStatus]                   = func(o *corev1.Node) *corev1.NodeStatus { return &o.Status }
	podStatus       statusOf[*corev1.Pod, corev1.PodStatus]                     = func(o *corev1.Pod) *corev1.PodStatus { return &o.Status }
	serviceStatus   statusOf[*corev1.Service, corev1.ServiceStatus]             = func(o *corev1.Service) *corev1.ServiceStatus { return &o.Status }
	ingressStatus   statusOf[*networkingv1.Ingress, networkingv1.IngressStatus] = func(o *networkingv1.Ingress) *networkingv1.IngressStatus { return &o.Status }
)

// reset sets the status to fresh, what a client may not set on create.
func (f statusOf[T, S]) reset(fresh S) func(runtime.Object) {
	return func(o runtime.Object) { *f(o.(T)) = fresh }
}

// copy sets dst's status to src's.
func (f statusOf[T, S]) copy(dst, src runtime.Object) { *f(dst.(T)) = *f(src.(T)) }
