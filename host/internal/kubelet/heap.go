package kubelet

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
)

// reasonOutOfMemory is the reason of a pod the node refuses because its
// memory limit does not fit what the node's pods have left, as a kubelet's
// admission words it.
const reasonOutOfMemory = "OutOfmemory"

// admitMemory refuses p, about to start in place of what runs under key,
// when the node stands for a board and p's memory cap would take the pods'
// heap past the board's pod memory: each running pod may grow to its cap,
// and together they must fit (docs/serve.md). Called with k.mu held.
func (k *Kubelet) admitMemory(p *corev1.Pod, key store.Key) *problem {
	if k.cfg.Board == nil {
		return nil
	}
	want, used, capacity := k.memoryCap(p), k.heapUsed(key), k.cfg.Board.PodMemory
	if used+want <= capacity {
		return nil
	}
	return &problem{reason: reasonOutOfMemory, message: fmt.Sprintf(
		"Pod was rejected: Node didn't have enough resource: memory, requested: %d, used: %d, capacity: %d "+
			"(the memory limits of the pods of a %s node, or the default memory limit for a pod without one, must fit its pod memory of %s)",
		want, used, capacity, k.cfg.Board.Name, modcheck.FormatBytes(capacity))}
}

// memoryCap is what p's container may grow to: its memory limit, else the
// node's default.
func (k *Kubelet) memoryCap(p *corev1.Pod) int64 {
	if limit, ok := p.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]; ok {
		return limit.Value()
	}
	return k.defaultMemoryLimit()
}

// heapUsed is the memory cap of every pod the node runs, but the one under
// except: pods refused or finished hold none. Called with k.mu held.
func (k *Kubelet) heapUsed(except store.Key) int64 {
	var used int64
	for key, r := range k.pods {
		if key == except || r.failed.Load() != nil {
			continue
		}
		if phase := r.pod.Status().Phase; phase == pod.PhaseSucceeded || phase == pod.PhaseFailed {
			continue
		}
		used += k.memoryCap(r.spec)
	}
	return used
}

// byCreation lists pods oldest first, by name on ties.
func byCreation(pods map[store.Key]*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	return out
}
