package apiserver

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/pod"
)

// isPodStream reports whether sub is one of a Pod's streaming
// subresources: portforward (portforward.go), and exec and attach, which a
// wasm pod has nothing to serve with.
func isPodStream(sub string) bool {
	return sub == "portforward" || sub == "exec" || sub == "attach"
}

// servePodStream serves pods/portforward, pods/exec and pods/attach.
func (s *Server) servePodStream(w http.ResponseWriter, r *http.Request, req request) {
	if req.subresource == "portforward" {
		s.servePortForward(w, r, req)
		return
	}
	if _, err := s.get(req); err != nil {
		writeStatus(w, err)
		return
	}
	writeStatus(w, noShell(req))
}

// noShell is the answer to exec and attach (and so to kubectl cp, which
// runs tar through exec): 400, as kube-apiserver answers a pod it cannot
// exec into, saying why.
func noShell(req request) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
		Message: pod.NoShell(req.namespace, req.name, req.subresource),
		Details: &metav1.StatusDetails{Name: req.name, Kind: "pods"},
	}}
}
