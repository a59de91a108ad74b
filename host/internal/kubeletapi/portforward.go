package kubeletapi

import (
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	portforwardnames "k8s.io/apimachinery/pkg/util/portforward"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/portforward"
)

// servePortForward answers /portForward/{namespace}/{pod}[/{uid}], what
// kube-apiserver calls for pods/portforward: a SPDY/3.1 upgrade with the
// portforward.k8s.io protocol (kube-apiserver tunnels kubectl's WebSocket
// into it itself), whose streams reach the pod's HTTP handler
// (host/internal/portforward, as the API server serves it).
func (s *Server) servePortForward(w http.ResponseWriter, r *http.Request) {
	namespace, name := r.PathValue("namespace"), r.PathValue("pod")
	spec, status, ok := s.cfg.Pods.Running(namespace, name)
	if !ok || (r.PathValue("uid") != "" && types.UID(r.PathValue("uid")) != spec.UID) {
		http.Error(w, fmt.Sprintf("pod %q does not exist", name), http.StatusNotFound)
		return
	}
	if status.Phase != pod.PhaseRunning {
		http.Error(w, fmt.Sprintf("pod %s/%s is not running (phase %s): there is nothing to forward to", namespace, name, status.Phase), http.StatusBadRequest)
		return
	}
	if !httpstream.IsUpgradeRequest(r) {
		http.Error(w, fmt.Sprintf("port-forward needs a SPDY/3.1 connection upgrade (%s)", portforwardnames.PortForwardV1Name), http.StatusBadRequest)
		return
	}
	if err := httplimit.Stream(r, httplimit.APIStream); err != nil {
		refused(w, err)
		return
	}
	p := spec.DeepCopy()
	p.Status.PodIP = s.cfg.NodeIP // a kube32 pod's IP is its node's
	portforward.New(p, s.podHandler(spec)).ServeSPDY(w, r)
}

// podHandler reaches the pod spec was started from, looked up at each
// request: a request after it went, or was replaced, answers 503.
func (s *Server) podHandler(spec *corev1.Pod) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := s.cfg.Pods.Handler(spec.Namespace, spec.Name)
		if !ok || !s.stillRunning(spec) {
			http.Error(w, "pod "+spec.Namespace+"/"+spec.Name+" is gone", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}
