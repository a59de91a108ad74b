package manifest

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// AddedCapabilities maps each container image reference of the Pods in objs
// to the capabilities (securityContext.capabilities.add) that some container
// running it adds, sorted; an image that a container runs without adding any
// maps to an empty slice, and an image no Pod runs is absent.
func AddedCapabilities(objs []Object) map[string][]string {
	added := map[string][]string{}
	eachContainer(objs, func(_ *corev1.Pod, c corev1.Container) {
		caps := added[c.Image]
		if caps == nil {
			caps = []string{}
		}
		if sc := c.SecurityContext; sc != nil && sc.Capabilities != nil {
			for _, capability := range sc.Capabilities.Add {
				if !slices.Contains(caps, string(capability)) {
					caps = append(caps, string(capability))
				}
			}
		}
		slices.Sort(caps)
		added[c.Image] = caps
	})
	return added
}
