package kubelet

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
)

// syncPolicies tells the Source the pods of this sync, before any of them
// starts: a worker loads their namespaces' NetworkPolicies then.
func (k *Kubelet) syncPolicies(ctx context.Context, pods map[store.Key]*corev1.Pod) {
	list := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		list = append(list, p)
	}
	k.cfg.Source.PodsSynced(ctx, list)
}

// callRecorder is the pod.Caller of the kubelet's pods: outbound.Caller, each
// call published on the activity stream. The node's Policy writes the
// [NETPOL] lines of the connections it refuses.
type callRecorder struct {
	k      *Kubelet
	caller *outbound.Caller
}

// HTTPCall implements pod.Caller.
func (r *callRecorder) HTTPCall(ctx context.Context, c pod.Call) (pod.CallResult, error) {
	res, err := r.caller.HTTPCall(ctx, c)
	r.k.recordCall(c, res, err)
	return res, err
}

// outside is the node's outbound.Outside with the node's Policy.
func (k *Kubelet) outside() *outbound.Outside {
	o := &outbound.Outside{}
	if k.cfg.Outside != nil {
		*o = *k.cfg.Outside
	}
	o.Policy = k.cfg.Policy
	return o
}
