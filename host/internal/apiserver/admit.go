package apiserver

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/admission"
)

// admit fills in obj's defaults and validates it, as every object entering
// the store is; an invalid object is a 422 Invalid naming each field.
func admit(res *resource, obj runtime.Object) error {
	errs := admission.Admit(obj)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(res.groupKind(), obj.(metav1.Object).GetName(), errs)
}

// admitUpdate is admit for a write that replaces cur: it adds the rules of
// updates, such as a Pod's immutable spec.
func admitUpdate(res *resource, obj, cur runtime.Object) error {
	errs := admission.AdmitUpdate(obj, cur)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(res.groupKind(), obj.(metav1.Object).GetName(), errs)
}

// warn adds a Warning header for each of admission's warnings about obj,
// an object written (what kube32 accepts and does not do), in
// kube-apiserver's form, 299 - "text", which kubectl prints.
func warn(w http.ResponseWriter, obj runtime.Object) {
	for _, text := range admission.Warnings(obj) {
		w.Header().Add("Warning", fmt.Sprintf("299 - %q", text))
	}
}
