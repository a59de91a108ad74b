package manifest

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// ImageRun is a container of a Pod of the manifests that runs an image,
// with the capabilities it adds (securityContext.capabilities.add).
type ImageRun struct {
	Pod          string   // "default/api"
	Capabilities []string // sorted, [] for none
}

// ImageRuns maps each container image reference of the Pods in objs to
// the containers that run it, in the order of objs; an image no Pod runs
// is absent.
func ImageRuns(objs []Object) map[string][]ImageRun {
	runs := map[string][]ImageRun{}
	eachContainer(objs, func(pod *corev1.Pod, c corev1.Container) {
		caps := []string{}
		if sc := c.SecurityContext; sc != nil && sc.Capabilities != nil {
			for _, capability := range sc.Capabilities.Add {
				if !slices.Contains(caps, string(capability)) {
					caps = append(caps, string(capability))
				}
			}
		}
		slices.Sort(caps)
		runs[c.Image] = append(runs[c.Image], ImageRun{Pod: pod.Namespace + "/" + pod.Name, Capabilities: caps})
	})
	return runs
}
