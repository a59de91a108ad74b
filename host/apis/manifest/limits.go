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
