package kubelet

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
)

// Running returns the Pod a pod of this node was started from and its
// runtime's status, for the node's kubelet API (host/internal/kubeletapi):
// its containers, uid and restart count. ok is false when the pod does
// not run on this node.
func (k *Kubelet) Running(namespace, name string) (spec *corev1.Pod, status pod.Status, ok bool) {
	k.mu.Lock()
	r, ok := k.pods[store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name}]
	k.mu.Unlock()
	if !ok {
		return nil, pod.Status{}, false
	}
	return r.spec, r.status(), true
}
