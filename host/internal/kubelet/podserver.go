package kubelet

import (
	"net/http"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httperror"
)

// headerPod names the pod a request to a node's pod port is for, as
// "<namespace>/<name>" (abi.HeaderPod).
const headerPod = abi.HeaderPod

// PodServer is the node's pod HTTP server (port 7000 on the boards): it
// dispatches each request to the pod named by abi.HeaderPod. The request's
// abi.HeaderCallChain, set by the node that sent an in-cluster call, reaches
// the pod as it is, so the pod's own calls extend the chain.
func (k *Kubelet) PodServer() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(headerPod)
		if id == "" && r.URL.Path == abi.NodeStatsPath {
			k.serveStats(w, r)
			return
		}
		namespace, name, ok := abi.SplitPodID(id)
		if !ok {
			httperror.Write(w, http.StatusBadRequest, map[string]string{"error": "missing or malformed " + abi.HeaderPod + " header",
				"reason": "want <namespace>/<name>"})
			return
		}
		h, ok := k.Handler(namespace, name)
		if !ok {
			// Said so that the sender tries another pod: the pod is gone
			// or terminating here, whatever the sender's view still says.
			w.Header().Set(abi.HeaderPodMissing, id)
			httperror.Write(w, http.StatusNotFound, map[string]string{"error": "pod not running on this node",
				"pod": id, "node": k.cfg.NodeName})
			return
		}
		h.ServeHTTP(w, r)
	})
}
