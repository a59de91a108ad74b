package apiserver

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/host/manifest"
)

// validateObject checks obj as host/manifest checks a manifest's objects,
// plus what kube-apiserver checks of every object (names, labels,
// selectors); the errors make a 422 Invalid Status naming each field.
func validateObject(res *resource, obj runtime.Object) error {
	meta := obj.(metav1.Object)
	errs := validateName(res, meta.GetName())
	errs = append(errs, metav1validation.ValidateLabels(meta.GetLabels(), field.NewPath("metadata", "labels"))...)
	switch o := obj.(type) {
	case *corev1.Service:
		errs = append(errs, metav1validation.ValidateLabels(o.Spec.Selector, field.NewPath("spec", "selector"))...)
	case *corev1.Pod:
		errs = append(errs, metav1validation.ValidateLabels(o.Spec.NodeSelector, field.NewPath("spec", "nodeSelector"))...)
	case *networkingv1.NetworkPolicy:
		errs = append(errs, validateNetworkPolicy(o)...)
	}
	for _, e := range manifest.Validate(obj) {
		if e.Field != "metadata.name" { // checked above, by the kind's own rule
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(obj.GetObjectKind().GroupVersionKind().GroupKind(), meta.GetName(), errs)
}

// validateName applies kube-apiserver's rule for the kind's names: DNS
// labels for Namespaces, DNS-1035 labels for Services, DNS subdomains
// otherwise.
func validateName(res *resource, name string) field.ErrorList {
	path := field.NewPath("metadata", "name")
	if name == "" {
		return field.ErrorList{field.Required(path, "name or generateName is required")}
	}
	var msgs []string
	switch res.Kind {
	case "Namespace":
		msgs = validation.IsDNS1123Label(name)
	case "Service":
		msgs = validation.IsDNS1035Label(name)
	default:
		msgs = validation.IsDNS1123Subdomain(name)
	}
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(path, name, m))
	}
	return errs
}
