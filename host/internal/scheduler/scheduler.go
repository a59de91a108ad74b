// Package scheduler binds Pods to Nodes: a Pod goes to a Ready node whose
// labels match its nodeSelector, spread by how many pods each node already
// runs; a Pod that matches no node stays Pending with a reason.
package scheduler

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/store"
)

// ReasonUnschedulable is the PodScheduled condition's reason for a pod that
// matches no node, as kube-scheduler writes it.
const ReasonUnschedulable = "Unschedulable"

// Schedule binds every unbound Pod of s that it can, and marks the others
// unschedulable. It is level-triggered: call it after any Pod or Node change.
func Schedule(s *store.Store) {
	nodes := readyNodes(s)
	load := map[string]int{}
	var unbound []*corev1.Pod
	for _, o := range s.List("Pod", "") {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName != "" {
			// Load is what a node runs: a pod that has finished runs nothing.
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				load[p.Spec.NodeName]++
			}
		} else if p.DeletionTimestamp == nil {
			unbound = append(unbound, p)
		}
	}
	for _, p := range unbound {
		node, why := pick(p, nodes, load)
		key := store.KeyOf(p)
		if node == "" {
			s.Update(key, func(o runtime.Object) bool { return markUnschedulable(o.(*corev1.Pod), why) })
			continue
		}
		load[node]++
		s.Update(key, func(o runtime.Object) bool {
			pod := o.(*corev1.Pod)
			pod.Spec.NodeName = node
			setScheduled(pod, corev1.ConditionTrue, "", "")
			return true
		})
	}
}

func readyNodes(s *store.Store) []*corev1.Node {
	var nodes []*corev1.Node
	for _, o := range s.List("Node", "") {
		n := o.(*corev1.Node)
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				nodes = append(nodes, n)
			}
		}
	}
	return nodes
}

// pick chooses the least loaded matching node (by name on ties), or says why
// none fits.
func pick(p *corev1.Pod, nodes []*corev1.Node, load map[string]int) (string, string) {
	selector := labels.SelectorFromSet(p.Spec.NodeSelector)
	var fit []string
	for _, n := range nodes {
		if selector.Matches(labels.Set(n.Labels)) {
			fit = append(fit, n.Name)
		}
	}
	if len(fit) == 0 {
		return "", fmt.Sprintf("0/%d nodes are available: %d node(s) didn't match Pod's node affinity/selector (nodeSelector %s).",
			len(nodes), len(nodes), describeSelector(p.Spec.NodeSelector))
	}
	sort.Slice(fit, func(i, j int) bool {
		if load[fit[i]] != load[fit[j]] {
			return load[fit[i]] < load[fit[j]]
		}
		return fit[i] < fit[j]
	})
	return fit[0], ""
}

func describeSelector(sel map[string]string) string {
	var parts []string
	for k, v := range sel {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func markUnschedulable(p *corev1.Pod, why string) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message == why {
			return false // already says so
		}
	}
	p.Status.Phase = corev1.PodPending
	setScheduled(p, corev1.ConditionFalse, ReasonUnschedulable, why)
	return true
}

func setScheduled(p *corev1.Pod, status corev1.ConditionStatus, reason, message string) {
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.Now()}
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			p.Status.Conditions[i] = cond
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, cond)
}

// AllPlaced reports whether every pod is bound to a node or known to fit
// none, i.e. the scheduler has nothing left to do.
func AllPlaced(s *store.Store) bool {
	for _, o := range s.List("Pod", "") {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		unschedulable := false
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == ReasonUnschedulable {
				unschedulable = true
			}
		}
		if !unschedulable {
			return false
		}
	}
	return true
}
