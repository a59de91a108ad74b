package admission

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/host/internal/downward"
)

// validateEnvSource checks an env valueFrom as kube-apiserver does, and
// that it is one the kubelet resolves (host/internal/downward): a fieldRef
// or a memory resourceFieldRef. kube32 serves no ConfigMaps, Secrets or
// volumes, so their references are refused rather than left unresolved.
func validateEnvSource(pod *corev1.Pod, e corev1.EnvVar, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	from, sources := e.ValueFrom, 0
	if from.FieldRef != nil {
		sources++
		errs = append(errs, validateFieldRef(from.FieldRef, path.Child("fieldRef"))...)
	}
	if from.ResourceFieldRef != nil {
		sources++
		errs = append(errs, validateResourceFieldRef(pod, from.ResourceFieldRef, path.Child("resourceFieldRef"))...)
	}
	for _, ref := range []struct {
		set         bool
		name, store string
	}{
		{from.ConfigMapKeyRef != nil, "configMapKeyRef", "ConfigMaps"},
		{from.SecretKeyRef != nil, "secretKeyRef", "Secrets"},
		{from.FileKeyRef != nil, "fileKeyRef", "volumes"},
	} {
		if ref.set {
			sources++
			errs = append(errs, field.Forbidden(path.Child(ref.name), "kube32 serves no "+ref.store+"; set value, or use fieldRef or resourceFieldRef"))
		}
	}
	switch {
	case sources == 0:
		errs = append(errs, field.Invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case e.Value != "":
		errs = append(errs, field.Invalid(path, "", "may not be specified when `value` is not empty"))
	case sources > 1:
		errs = append(errs, field.Invalid(path, "", "may not have more than one field specified at a time"))
	}
	return errs
}

func validateFieldRef(ref *corev1.ObjectFieldSelector, path *field.Path) field.ErrorList {
	fieldPath := path.Child("fieldPath")
	switch {
	case ref.APIVersion == "":
		return field.ErrorList{field.Required(path.Child("apiVersion"), "")}
	case ref.FieldPath == "":
		return field.ErrorList{field.Required(fieldPath, "")}
	case ref.APIVersion != "v1":
		return field.ErrorList{field.Invalid(fieldPath, ref.FieldPath, "error converting fieldPath: unsupported pod version: "+ref.APIVersion)}
	}
	if p, key, ok := downward.SplitSubscript(ref.FieldPath); ok {
		if !sets.New(downward.SubscriptedPaths...).Has(p) {
			return field.ErrorList{field.Invalid(fieldPath, ref.FieldPath, "error converting fieldPath: field label does not support subscript: "+ref.FieldPath)}
		}
		if p == "metadata.annotations" {
			key = strings.ToLower(key) // annotation keys are checked lowercased, as kube-apiserver does
		}
		var errs field.ErrorList
		for _, msg := range validation.IsQualifiedName(key) {
			errs = append(errs, field.Invalid(path, key, msg))
		}
		return errs
	}
	if !sets.New(downward.FieldPaths...).Has(ref.FieldPath) {
		return field.ErrorList{field.NotSupported(fieldPath, ref.FieldPath, downward.FieldPaths)}
	}
	return nil
}

func validateResourceFieldRef(pod *corev1.Pod, ref *corev1.ResourceFieldSelector, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case ref.Resource == "":
		errs = append(errs, field.Required(path.Child("resource"), ""))
	case !sets.New(downward.Resources...).Has(ref.Resource):
		errs = append(errs, field.NotSupported(path.Child("resource"), ref.Resource, downward.Resources))
	}
	if !ref.Divisor.IsZero() && !sets.New(downward.MemoryDivisors...).Has(ref.Divisor.String()) {
		errs = append(errs, field.Invalid(path.Child("divisor"), ref.Resource,
			fmt.Sprintf("only divisor's values %s are supported with the memory resource", strings.Join(downward.MemoryDivisors, ", "))))
	}
	if name := ref.ContainerName; name != "" && !hasContainer(pod, name) {
		errs = append(errs, field.Invalid(path.Child("containerName"), name, "must be the name of a container of this pod"))
	}
	return errs
}

func hasContainer(pod *corev1.Pod, name string) bool {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	return false
}
