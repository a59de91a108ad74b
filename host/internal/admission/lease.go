package admission

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateLease checks a Lease as kube-apiserver does: its metadata, and
// a duration and a count of transitions that are not negative. Nodes renew
// one each in abi.NamespaceNodeLease (docs/nodes.md).
func validateLease(l *coordinationv1.Lease) field.ErrorList {
	errs := validateMeta(l, true, nameIsDNSSubdomain)
	spec := field.NewPath("spec")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if t := l.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseTransitions"), *t, "must be greater than or equal to 0"))
	}
	return errs
}
