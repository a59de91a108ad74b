package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/apistatus"
	"github.com/kube32/kube32/host/internal/store"
)

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeStatus answers err as the metav1.Status kube-apiserver would send
// (host/internal/apistatus, shared with what the API port mounts).
func writeStatus(w http.ResponseWriter, err error) { apistatus.Write(w, err) }

// toStatus turns an error into a Status: API errors as they are, anything
// else as an internal error.
func toStatus(err error) *metav1.Status { return apistatus.Of(err) }

// storeError maps the store's errors onto the resource and name.
func storeError(res *resource, name string, err error) error {
	gr := res.groupResource()
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, store.ErrAlreadyExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, store.ErrConflict):
		return apierrors.NewConflict(gr, name, errors.New(store.ErrConflict.Error()))
	case errors.Is(err, store.ErrGone):
		return apierrors.NewResourceExpired(err.Error())
	}
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		return err
	}
	return apierrors.NewInternalError(err)
}

func notFoundPath(r *http.Request) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource",
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeUnexpectedServerResponse, Message: "404 page not found"}}},
	}}
}

func methodNotAllowed(res *resource, verb string) error {
	return apierrors.NewMethodNotSupported(res.groupResource(), verb)
}

func badRequest(format string, args ...any) error {
	return apierrors.NewBadRequest(fmt.Sprintf(format, args...))
}
