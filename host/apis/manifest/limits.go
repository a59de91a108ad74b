package manifest

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// ImageLimit is the memory a module image may use: the smallest limit among
// the pods that run it, since the module must start in every one of them.
type ImageLimit struct {
	Bytes int64    // 0 when no pod sets a limit
	Pods  []string // "default/echo", sorted
}

// MemoryLimits maps each container image reference of the Pods in objs to
// its ImageLimit.
func MemoryLimits(objs []Object) map[string]ImageLimit {
	limits := map[string]ImageLimit{}
	eachContainer(objs, func(pod *corev1.Pod, c corev1.Container) {
		l := limits[c.Image]
		if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
			if b := q.Value(); l.Bytes == 0 || b < l.Bytes {
				l.Bytes = b
			}
		}
		l.Pods = append(l.Pods, pod.Namespace+"/"+pod.Name)
		sort.Strings(l.Pods)
		limits[c.Image] = l
	})
	return limits
}

// eachContainer calls f with every container of the Pods in objs.
func eachContainer(objs []Object, f func(*corev1.Pod, corev1.Container)) {
	for _, o := range objs {
		if pod, ok := o.Obj.(*corev1.Pod); ok {
			for _, c := range pod.Spec.Containers {
				f(pod, c)
			}
		}
	}
}

// MemoryRequest is the memory a container requests, in bytes, as
// kube-scheduler's NodeResourcesFit counts it and so serve --board's
// scheduler and kube32 build's fit report (docs/serve.md, "Board
// budgets"): its resources.requests.memory, else its limits.memory (as the
// API server defaults a request), else defaultLimit, the cap a node gives
// a container without a limit, which is what it may grow to.
func MemoryRequest(c corev1.Container, defaultLimit int64) int64 {
	if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
		return q.Value()
	}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		return q.Value()
	}
	return defaultLimit
}

// PodMemoryRequest is what a Pod requests: the sum of its containers'
// MemoryRequest.
func PodMemoryRequest(p *corev1.Pod, defaultLimit int64) int64 {
	var sum int64
	for _, c := range p.Spec.Containers {
		sum += MemoryRequest(c, defaultLimit)
	}
	return sum
}
