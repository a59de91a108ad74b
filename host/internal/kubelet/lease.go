package kubelet

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/store"
)

// The node's heartbeat, as a kubelet's (docs/nodes.md): every
// abi.NodeLeaseRenewInterval it renews its Lease in abi.NamespaceNodeLease,
// which the control plane's node controller watches. The same beat
// notices a Node that is gone (the control plane restarted with an empty
// store, or someone deleted it) or not Ready (the node controller marked
// it Unknown while the node was silent) and registers it again, and
// writes again the pod statuses the node controller changed meanwhile.

// nodeLease is the node's Lease, renewed now.
func (k *Kubelet) nodeLease() *coordinationv1.Lease {
	holder := k.cfg.NodeName
	duration := int32(abi.NodeLeaseDuration / time.Second)
	now := metav1.NewMicroTime(time.Now())
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: abi.NamespaceNodeLease, Name: k.cfg.NodeName},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, RenewTime: &now},
	}
}

// renewInterval is how often the node renews its Lease.
func (k *Kubelet) renewInterval() time.Duration {
	if k.cfg.LeaseRenewInterval > 0 {
		return k.cfg.LeaseRenewInterval
	}
	return abi.NodeLeaseRenewInterval
}

// heartbeat renews the Lease every renewInterval until ctx ends.
func (k *Kubelet) heartbeat(ctx context.Context) {
	t := time.NewTicker(k.renewInterval())
	defer t.Stop()
	for {
		k.beat(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// beat renews the Lease once, then registers the Node again when it is
// gone or not Ready, and rewrites pod statuses that disagree with the
// runtime. A control plane that does not answer is tried again next beat.
func (k *Kubelet) beat(ctx context.Context) {
	node, err := k.cfg.Source.RenewLease(ctx, k.nodeLease())
	if err != nil {
		return
	}
	if node == nil || !nodeReady(node) {
		if err := k.cfg.Source.RegisterNode(ctx, k.nodeObject()); err != nil {
			return
		}
	}
	k.resyncReady()
}

// nodeReady reports whether n's Ready condition is True.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// resyncReady writes the status of every pod whose stored Ready condition
// is not its runtime's: the node controller sets it False while the node
// is silent, and only the kubelet knows better.
func (k *Kubelet) resyncReady() {
	type stale struct {
		key store.Key
		p   *corev1.Pod
		r   *running
	}
	var out []stale
	k.mu.Lock()
	for _, p := range k.cfg.Source.Pods(k.cfg.NodeName) {
		key := store.KeyOf(p)
		r, ok := k.pods[key]
		if !ok || r.failed.Load() != nil || r.uid != string(p.UID) || r.generation != p.Generation || p.DeletionTimestamp != nil {
			continue
		}
		if st := r.pod.Status(); st.Started && podReady(p) != st.Ready {
			out = append(out, stale{key, p, r})
		}
	}
	k.mu.Unlock()
	for _, s := range out {
		k.writeStatus(s.key, s.p.UID, s.p.Generation, s.r.pod.Status)
	}
}

// podReady reports whether p's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
