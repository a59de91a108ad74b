// Package apistatus writes the answers of the API port that are not an
// object: an error as the metav1.Status kube-apiserver would send, which
// kubectl and client-go read, for the Kubernetes API, its token check
// (host/internal/apiauth) and the streams of the handlers mounted beside it
// (the web view's events).
package apistatus

import (
	"encoding/json"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// Write answers err as the metav1.Status kube-apiserver would send.
func Write(w http.ResponseWriter, err error) {
	st := Of(err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}

// Of turns an error into a Status: API errors as they are, anything else
// as an internal error.
func Of(err error) *metav1.Status {
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		st := api.Status()
		st.Kind, st.APIVersion = "Status", "v1"
		return &st
	}
	st := apierrors.NewInternalError(err).Status()
	st.Kind, st.APIVersion = "Status", "v1"
	return &st
}

// BeginStream moves the request's connection to the stream class of the
// connection budget (httplimit.Stream) before a watch, a followed log, a
// port-forward or the web view's events answers. A stream refused for
// want of room is a Status of the same code with its Retry-After, which
// client-go's watches and retries honour (docs/serve.md "Hostile
// clients").
func BeginStream(w http.ResponseWriter, r *http.Request) error {
	err := httplimit.Stream(r, httplimit.APIStream)
	var ref *httplimit.Refused
	if !errors.As(err, &ref) {
		return err
	}
	ref.SetRetryAfter(w.Header())
	reason := metav1.StatusReasonServiceUnavailable
	if ref.Code == http.StatusTooManyRequests {
		reason = metav1.StatusReasonTooManyRequests
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: int32(ref.Code), Reason: reason, Message: ref.Reason,
		Details: &metav1.StatusDetails{RetryAfterSeconds: int32(httplimit.StreamRetryAfter.Seconds())},
	}}
}
