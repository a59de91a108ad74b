package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/apis/manifest"
)

// The reasons a node that matches a pod's nodeSelector cannot take it, as
// kube-scheduler's NodeResourcesFit words them.
const (
	reasonMemory  = "Insufficient memory"
	reasonTooMany = "Too many pods"
)

// usage is what the unfinished pods bound to a node request.
type usage struct {
	pods   int
	memory int64
}

func (u *usage) add(p *corev1.Pod, opts Options) {
	u.pods++
	u.memory += manifest.PodMemoryRequest(p, opts.DefaultMemoryLimit)
}

// misfit says why node n, already holding u, cannot take p: none when it
// can. As NodeResourcesFit, its allocatable pods must hold one more and
// its allocatable memory what its pods request and p's request; each
// shortfall is a reason. A node that reports no allocatable memory or pods
// (serve without --board) holds any.
func misfit(p *corev1.Pod, n *corev1.Node, u *usage, opts Options) []string {
	var why []string
	if q, ok := n.Status.Allocatable[corev1.ResourcePods]; ok && int64(u.pods+1) > q.Value() {
		why = append(why, reasonTooMany)
	}
	if q, ok := n.Status.Allocatable[corev1.ResourceMemory]; ok && u.memory+manifest.PodMemoryRequest(p, opts.DefaultMemoryLimit) > q.Value() {
		why = append(why, reasonMemory)
	}
	return why
}
