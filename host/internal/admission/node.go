package admission

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateNode checks what kube-apiserver checks of every Node's metadata;
// the nodes register themselves.
func validateNode(n *corev1.Node) field.ErrorList {
	return validateMeta(n, false, nameIsDNSSubdomain)
}
