package admission

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/abi"
)

// defaultNamespace labels a Namespace with its name, as kube-apiserver
// does, so that NetworkPolicy namespace selectors can pick it.
func defaultNamespace(ns *corev1.Namespace) {
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[abi.LabelNamespaceName] = ns.Name
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
}

func validateNamespace(ns *corev1.Namespace) field.ErrorList {
	return validateMeta(ns, false, nameIsDNSLabel)
}
