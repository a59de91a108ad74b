// Package admission is the one path of every object into the cluster's
// store, whether it comes from an API write (create, update, patch), from
// a manifest (`kube32 serve -f`, a project's manifests) or from
// `kube32 build`'s checks: Decode (strict), then Admit, which fills in
// kube-apiserver's defaults and validates the object as kube-apiserver
// does, each error naming its field as a 422 from the API does. Both ask
// the kind's Strategy (strategy.go), which also holds what the API server
// shows of the kind: discovery, field selectors, Tables.
package admission

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Admit fills in obj's defaults, then validates it; the errors are those
// a kube-apiserver 422 Invalid lists as its causes. obj must be a kind the
// API accepts writes of.
func Admit(obj runtime.Object) field.ErrorList {
	s := StrategyOf(obj)
	if s == nil || s.Validate == nil {
		return field.ErrorList{field.Forbidden(field.NewPath("kind"), fmt.Sprintf("%T cannot be written", obj))}
	}
	if s.Default != nil {
		s.Default(obj)
	}
	return s.Validate(obj)
}

// AdmitUpdate admits obj as Admit does, as the replacement of old, the
// stored object of the same kind: a Pod's spec may then change only where
// kube-apiserver allows it (podupdate.go).
func AdmitUpdate(obj, old runtime.Object) field.ErrorList {
	errs := Admit(obj)
	if s := StrategyOf(obj); s != nil && s.ValidateUpdate != nil {
		errs = append(errs, s.ValidateUpdate(obj, old)...)
	}
	return errs
}

// Warnings says what of obj, admitted, kube32 accepts but does not do, one
// sentence each starting with the field, as kube-apiserver's warnings do:
// the API sends each as a Warning header (which kubectl prints), and
// `kube32 serve -f` and `kube32 build` print each for the manifests they
// read. None for a kind whose every field is heeded.
func Warnings(obj runtime.Object) []string {
	if s := StrategyOf(obj); s != nil && s.Warnings != nil {
		return s.Warnings(obj)
	}
	return nil
}
