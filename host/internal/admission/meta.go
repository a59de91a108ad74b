package admission

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The name rules of kube-apiserver: DNS subdomains for most kinds, DNS
// labels for Namespaces, RFC 1035 labels for Services.
var (
	nameIsDNSSubdomain = apivalidation.NameIsDNSSubdomain
	nameIsDNSLabel     = apivalidation.NameIsDNSLabel
	nameIsDNS1035Label = apivalidation.NameIsDNS1035Label
)

// validateMeta checks metadata as kube-apiserver checks every object's:
// name (by the kind's rule) or generateName, namespace, labels,
// annotations, owner references and finalizers.
func validateMeta(meta metav1.Object, namespaced bool, name apivalidation.ValidateNameFunc) field.ErrorList {
	return apivalidation.ValidateObjectMetaAccessor(meta, namespaced, name, field.NewPath("metadata"))
}

// validateSelectorLabels checks a map of labels used as a selector
// (a Service's selector, a Pod's nodeSelector).
func validateSelectorLabels(labels map[string]string, path *field.Path) field.ErrorList {
	return metav1validation.ValidateLabels(labels, path)
}
