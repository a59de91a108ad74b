package apiserver

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// resetStatus clears what a client may not set on create: the status of
// kinds whose status a controller writes.
func resetStatus(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Status = corev1.PodStatus{Phase: corev1.PodPending}
	case *corev1.Service:
		o.Status = corev1.ServiceStatus{}
	case *networkingv1.Ingress:
		o.Status = networkingv1.IngressStatus{}
	case *corev1.Namespace:
		o.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	}
}

// copyStatus sets dst's status to src's, for kinds with a status.
func copyStatus(dst, src runtime.Object) {
	switch d := dst.(type) {
	case *corev1.Pod:
		d.Status = src.(*corev1.Pod).Status
	case *corev1.Service:
		d.Status = src.(*corev1.Service).Status
	case *networkingv1.Ingress:
		d.Status = src.(*networkingv1.Ingress).Status
	case *corev1.Namespace:
		d.Status = src.(*corev1.Namespace).Status
	case *corev1.Node:
		d.Status = src.(*corev1.Node).Status
	}
}
