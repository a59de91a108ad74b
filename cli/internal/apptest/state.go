package apptest

import (
	"errors"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
)

// Lister lists the cluster's objects of a kind in a namespace ("" = all):
// host.Cluster's Store.
type Lister interface {
	List(kind, namespace string) []runtime.Object
}

// State is where kube32's pod and event queries read the cluster: the
// store of the cluster kube32 test starts (StoreState), or a Kubernetes
// cluster's API (KubernetesState). An error fails the query.
type State interface {
	// List lists the objects of a kind ("Pod", "Event") in a namespace.
	List(kind, namespace string) ([]runtime.Object, error)
}

// StoreState is the State of a local cluster's store.
func StoreState(l Lister) State { return storeState{l} }

type storeState struct{ l Lister }

func (s storeState) List(kind, namespace string) ([]runtime.Object, error) {
	return s.l.List(kind, namespace), nil
}

// errNoState fails a pod or event query of a run without a cluster to read
// (kube32 test --url).
var errNoState = errors.New("reads the cluster's state: run kube32 test with --kubeconfig and --ingress to test a deployed app (docs/testing.md)")

// objectRef splits "namespace/name"; a bare name is in default.
func objectRef(ref string) (namespace, name string) {
	if ns, n, ok := strings.Cut(ref, "/"); ok {
		return ns, n
	}
	return "default", ref
}

// podsOf are the pods a reference names: the pod of that name, else those
// of the Deployment of that name, found by their label app=NAME or
// abi.LabelDeployPod=NAME (what kube32 deploy makes of a Pod), those being
// deleted left out, in the order of their names.
func podsOf(state State, ref string) ([]*corev1.Pod, error) {
	if state == nil {
		return nil, errNoState
	}
	ns, name := objectRef(ref)
	objs, err := state.List("Pod", ns)
	if err != nil {
		return nil, err
	}
	var byLabel []*corev1.Pod
	for _, o := range objs {
		p, ok := o.(*corev1.Pod)
		switch {
		case !ok:
		case p.Name == name:
			return []*corev1.Pod{p}, nil
		case p.DeletionTimestamp == nil && (p.Labels["app"] == name || p.Labels[abi.LabelDeployPod] == name):
			byLabel = append(byLabel, p)
		}
	}
	sort.Slice(byLabel, func(i, j int) bool { return byLabel[i].Name < byLabel[j].Name })
	return byLabel, nil
}

// podField reads a pod's restarts (every container's, summed), crashed
// (a container's last end was not Completed), phase, ready (its Ready
// condition) or node (the one it is bound to). When the reference names
// several pods (a Deployment's), restarts are summed, crashed is whether
// one crashed, ready whether all are, phase the one they share or else
// the first of Failed, Unknown, Pending, Succeeded they are in, and node
// the list of their nodes.
func podField(state State, ref, field string) (any, bool, error) {
	pods, err := podsOf(state, ref)
	if err != nil || len(pods) == 0 {
		return nil, false, err
	}
	switch field {
	case "restarts":
		n := 0
		for _, p := range pods {
			for _, c := range p.Status.ContainerStatuses {
				n += int(c.RestartCount)
			}
		}
		return int64(n), true, nil
	case "crashed":
		// A container that ends because it was asked to (a rebuilt
		// image swapped in by --watch) ends Completed; a trap, an
		// exit in a callback, the memory limit or the deadline end it
		// with Error, OOMKilled or DeadlineExceeded.
		for _, p := range pods {
			for _, c := range p.Status.ContainerStatuses {
				if end := c.LastTerminationState.Terminated; end != nil && end.Reason != "Completed" {
					return true, true, nil
				}
			}
		}
		return false, true, nil
	case "phase":
		phases := map[corev1.PodPhase]bool{}
		for _, p := range pods {
			phases[p.Status.Phase] = true
		}
		if len(phases) > 1 {
			for _, worst := range []corev1.PodPhase{corev1.PodFailed, corev1.PodUnknown, corev1.PodPending, corev1.PodSucceeded} {
				if phases[worst] {
					return string(worst), true, nil
				}
			}
		}
		return string(pods[0].Status.Phase), true, nil
	case "node":
		if len(pods) == 1 {
			return pods[0].Spec.NodeName, pods[0].Spec.NodeName != "", nil
		}
		var nodes []any
		for _, p := range pods {
			if p.Spec.NodeName != "" {
				nodes = append(nodes, p.Spec.NodeName)
			}
		}
		return nodes, len(nodes) > 0, nil
	default: // ready
		for _, p := range pods {
			if !podReady(p) {
				return false, true, nil
			}
		}
		return true, true, nil
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// eventMessage is the message of the latest Event with reason about the
// object ref (a pod, a node, ...), or about one of the pods it names (a
// Deployment's), as kubectl get events lists them.
func eventMessage(state State, ref, reason string) (any, bool, error) {
	pods, err := podsOf(state, ref)
	if err != nil {
		return nil, false, err
	}
	ns, name := objectRef(ref)
	about := map[string]bool{name: true}
	for _, p := range pods {
		about[p.Name] = true
	}
	events, err := state.List("Event", ns)
	if err != nil {
		return nil, false, err
	}
	var latest *corev1.Event
	for _, o := range events {
		e, ok := o.(*corev1.Event)
		if !ok || !about[e.InvolvedObject.Name] || e.Reason != reason {
			continue
		}
		if latest == nil || !e.LastTimestamp.Before(&latest.LastTimestamp) {
			latest = e
		}
	}
	if latest == nil {
		return nil, false, nil
	}
	return latest.Message, true, nil
}
