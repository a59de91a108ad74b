package admission

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateEvent checks an Event's metadata, and that the object it is
// about is in its namespace, as kube-apiserver does for core/v1 Events.
func validateEvent(e *corev1.Event) field.ErrorList {
	errs := validateMeta(e, true, nameIsDNSSubdomain)
	involved := e.InvolvedObject
	if involved.Namespace != "" && involved.Namespace != e.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), involved.Namespace,
			"does not match event.namespace"))
	}
	return errs
}
