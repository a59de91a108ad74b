package apptest

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Lister lists the cluster's objects of a kind in a namespace ("" = all):
// host.Cluster's Store.
type Lister interface {
	List(kind, namespace string) []runtime.Object
}

// objectRef splits "namespace/name"; a bare name is in default.
func objectRef(ref string) (namespace, name string) {
	if ns, n, ok := strings.Cut(ref, "/"); ok {
		return ns, n
	}
	return "default", ref
}

// podField reads a pod's restarts (every container's, summed), crashed
// (a container's last end was not Completed), phase, ready (its Ready
// condition) or node (the one it is bound to).
func podField(state Lister, ref, field string) (any, bool) {
	ns, name := objectRef(ref)
	for _, o := range state.List("Pod", ns) {
		p, ok := o.(*corev1.Pod)
		if !ok || p.Name != name {
			continue
		}
		switch field {
		case "restarts":
			n := 0
			for _, c := range p.Status.ContainerStatuses {
				n += int(c.RestartCount)
			}
			return int64(n), true
		case "crashed":
			// A container that ends because it was asked to (a rebuilt
			// image swapped in by --watch) ends Completed; a trap, an
			// exit in a callback, the memory limit or the deadline end it
			// with Error, OOMKilled or DeadlineExceeded.
			for _, c := range p.Status.ContainerStatuses {
				if end := c.LastTerminationState.Terminated; end != nil && end.Reason != "Completed" {
					return true, true
				}
			}
			return false, true
		case "phase":
			return string(p.Status.Phase), true
		case "node":
			return p.Spec.NodeName, p.Spec.NodeName != ""
		default: // ready
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady {
					return c.Status == corev1.ConditionTrue, true
				}
			}
			return false, true
		}
	}
	return nil, false
}

// eventMessage is the message of the latest Event with reason about the
// object ref (a pod, a node, ...), as kubectl get events lists them.
func eventMessage(state Lister, ref, reason string) (any, bool) {
	ns, name := objectRef(ref)
	var latest *corev1.Event
	for _, o := range state.List("Event", ns) {
		e, ok := o.(*corev1.Event)
		if !ok || e.InvolvedObject.Name != name || e.Reason != reason {
			continue
		}
		if latest == nil || !e.LastTimestamp.Before(&latest.LastTimestamp) {
			latest = e
		}
	}
	if latest == nil {
		return nil, false
	}
	return latest.Message, true
}
