package apiserver

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/admission"
)

// decodeFor decodes a body meant for req's resource with host/internal/admission's
// strict decoder, its kind and apiVersion defaulting to the URL's
// (withTypeMeta), and checks its kind, group version and namespace against
// the URL. Unknown or duplicate fields fail the request when
// fieldValidation is Strict, add a Warning header when it is Warn (the
// default) and pass when it is Ignore.
func decodeFor(w http.ResponseWriter, r *http.Request, req request, data []byte) (runtime.Object, error) {
	contentType := r.Header.Get("Content-Type")
	if r.Method == http.MethodPatch {
		contentType = runtime.ContentTypeJSON // the patched object, whatever the patch's type
	}
	contentType, data, err := withTypeMeta(contentType, data, req.res)
	if err != nil {
		return nil, err
	}
	obj, strictErr, err := admission.Decode(contentType, data)
	if errors.Is(err, admission.ErrUnsupportedMediaType) {
		return nil, unsupportedMediaType(err)
	}
	if err != nil {
		return nil, badRequest("the body of the request could not be decoded as %s: %v", req.res.Kind, err)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind != req.res.Kind {
		return nil, badRequest("the kind in the body (%s) does not match the resource %s (kind %s)", gvk.Kind, req.res.Name, req.res.Kind)
	}
	if gvk.GroupVersion() != req.res.gv() {
		return nil, badRequest("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), req.res.apiVersion())
	}
	if strictErr != nil {
		switch r.URL.Query().Get("fieldValidation") {
		case metav1.FieldValidationStrict:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("strict decoding error: %v", strictErr))
		case metav1.FieldValidationIgnore:
		default:
			warnings := []error{strictErr}
			if list, ok := strictErr.(interface{ Unwrap() []error }); ok {
				warnings = list.Unwrap()
			}
			for _, warning := range warnings { // one per field, as kube-apiserver sends them
				w.Header().Add("Warning", fmt.Sprintf("299 - %q", warning.Error()))
			}
		}
	}
	meta := obj.(metav1.Object)
	if req.res.Namespaced {
		switch {
		case meta.GetNamespace() == "":
			meta.SetNamespace(req.namespace)
		case req.namespace != "" && meta.GetNamespace() != req.namespace:
			return nil, badRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else if meta.GetNamespace() != "" {
		meta.SetNamespace("")
	}
	return obj, nil
}

// unsupportedMediaType is kube-apiserver's 415 for a body it cannot read.
func unsupportedMediaType(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType, Message: err.Error(),
	}}
}
