package apiserver

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// beginStream moves the request's connection to the stream class of the
// connection budget (httplimit.Stream) before a watch, a followed log, a
// port-forward or the web view's events answers. A stream refused for
// want of room is a Status of the same code with its Retry-After, which
// client-go's watches and retries honour (docs/serve.md "Hostile
// clients").
func beginStream(w http.ResponseWriter, r *http.Request) error {
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
