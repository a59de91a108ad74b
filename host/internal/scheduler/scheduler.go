// Package scheduler binds Pods to Nodes: a Pod goes to a Ready node whose
// labels match its nodeSelector and whose allocatable memory and pods hold
// it (fit.go), spread by how many pods each node already runs; a Pod that
// fits no node stays Pending with kube-scheduler's reason.
package scheduler

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// ReasonUnschedulable is the PodScheduled condition's reason for a pod that
// matches no node, as kube-scheduler writes it.
const ReasonUnschedulable = "Unschedulable"

// Options configure the scheduler.
type Options struct {
	// DefaultMemoryLimit is what a container without a memory request or
	// limit counts as requesting, in bytes: the memory cap the nodes give
	// it, which is what it may grow to. It matters only on nodes that
	// report allocatable memory (serve --board).
	DefaultMemoryLimit int64
}

// Schedule binds every unbound Pod of s that it can, and marks the others
// unschedulable. It is level-triggered: call it after any Pod or Node change.
func Schedule(s *store.Store, opts Options) {
	nodes := readyNodes(s)
	used := map[string]*usage{}
	for _, n := range nodes {
		used[n.Name] = &usage{}
	}
	var unbound []*corev1.Pod
	pods, _ := s.ListShared(kinds.Pod, "") // read only: bindings go through Update
	for _, o := range pods {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName != "" {
			// What a node runs: a pod that has finished runs nothing.
			if u := used[p.Spec.NodeName]; u != nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				u.add(p, opts)
			}
		} else if p.DeletionTimestamp == nil {
			unbound = append(unbound, p)
		}
	}
	for _, p := range unbound {
		node, why := pick(p, nodes, used, opts)
		key := store.KeyOf(p)
		if node == "" {
			s.Update(key, func(o runtime.Object) bool { return markUnschedulable(o.(*corev1.Pod), why) })
			continue
		}
		used[node].add(p, opts)
		s.Update(key, func(o runtime.Object) bool {
			pod := o.(*corev1.Pod)
			pod.Spec.NodeName = node
			setScheduled(pod, corev1.ConditionTrue, "", "")
			return true
		})
	}
}

func readyNodes(s *store.Store) []*corev1.Node {
	var ready []*corev1.Node
	nodes, _ := s.ListShared(kinds.Node, "")
	for _, o := range nodes {
		n := o.(*corev1.Node)
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				ready = append(ready, n)
			}
		}
	}
	return ready
}

// reasonSelector is kube-scheduler's reason for a node whose labels do not
// match the pod's nodeSelector.
const reasonSelector = "node(s) didn't match Pod's node affinity/selector"

// pick chooses the least loaded node that matches and fits (by name on
// ties), or says why none does, as kube-scheduler does: "0/3 nodes are
// available: 3 Insufficient memory."
func pick(p *corev1.Pod, nodes []*corev1.Node, used map[string]*usage, opts Options) (string, string) {
	selector := labels.SelectorFromSet(p.Spec.NodeSelector)
	var fit []string
	reasons := map[string]int{}
	for _, n := range nodes {
		if !selector.Matches(labels.Set(n.Labels)) {
			reasons[reasonSelector]++
			continue
		}
		if why := misfit(p, n, used[n.Name], opts); len(why) > 0 {
			for _, r := range why {
				reasons[r]++
			}
			continue
		}
		fit = append(fit, n.Name)
	}
	if len(fit) == 0 {
		if reasons[reasonSelector] == len(nodes) {
			return "", fmt.Sprintf("0/%d nodes are available: %d %s (nodeSelector %s).",
				len(nodes), len(nodes), reasonSelector, describeSelector(p.Spec.NodeSelector))
		}
		return "", fmt.Sprintf("0/%d nodes are available: %s.", len(nodes), countReasons(reasons))
	}
	sort.Slice(fit, func(i, j int) bool {
		if used[fit[i]].pods != used[fit[j]].pods {
			return used[fit[i]].pods < used[fit[j]].pods
		}
		return fit[i] < fit[j]
	})
	return fit[0], ""
}

// countReasons writes "2 Insufficient memory, 1 node(s) didn't match …",
// sorted by reason as kube-scheduler sorts them.
func countReasons(reasons map[string]int) string {
	var parts []string
	for why, n := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, why))
	}
	sort.Slice(parts, func(i, j int) bool {
		_, a, _ := strings.Cut(parts[i], " ")
		_, b, _ := strings.Cut(parts[j], " ")
		return a < b
	})
	return strings.Join(parts, ", ")
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
	pods, _ := s.ListShared(kinds.Pod, "")
	for _, o := range pods {
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
