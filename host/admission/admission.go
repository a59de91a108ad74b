// Package admission is the one path of every object into the cluster's
// store, whether it comes from an API write (create, update, patch), from
// a manifest (`kube32 serve -f`, a project's manifests) or from
// `kube32 build`'s checks: Decode (strict), then Admit, which fills in
// kube-apiserver's defaults and validates the object as kube-apiserver
// does, each error naming its field as a 422 from the API does.
package admission

import (
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/host/apis/kube32v1"
)

// Admit fills in obj's defaults, then validates it; the errors are those
// a kube-apiserver 422 Invalid lists as its causes. obj must be a kind the
// API accepts writes of.
func Admit(obj runtime.Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Namespace:
		defaultNamespace(o)
		return validateNamespace(o)
	case *corev1.Pod:
		defaultPod(o)
		return validatePod(o)
	case *corev1.Service:
		defaultService(o)
		return validateService(o)
	case *networkingv1.Ingress:
		return validateIngress(o)
	case *networkingv1.NetworkPolicy:
		defaultNetworkPolicy(o)
		return validateNetworkPolicy(o)
	case *kube32v1.StaticBundle:
		return validateStaticBundle(o)
	case *corev1.Node:
		return validateNode(o)
	case *corev1.Event:
		return validateEvent(o)
	case *coordinationv1.Lease:
		return validateLease(o)
	default:
		return field.ErrorList{field.Forbidden(field.NewPath("kind"), fmt.Sprintf("%T cannot be written", obj))}
	}
}

// AdmitUpdate admits obj as Admit does, as the replacement of old, the
// stored object of the same kind: a Pod's spec may then change only where
// kube-apiserver allows it (podupdate.go).
func AdmitUpdate(obj, old runtime.Object) field.ErrorList {
	errs := Admit(obj)
	if pod, ok := obj.(*corev1.Pod); ok {
		if oldPod, ok := old.(*corev1.Pod); ok {
			errs = append(errs, validatePodUpdate(pod, oldPod)...)
		}
	}
	return errs
}
