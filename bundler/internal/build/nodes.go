package build

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/apis/manifest"
)

// An app whose Pods are pinned to two or more nodes (spec.nodeName, or a
// nodeSelector, kubernetes.io/hostname as docs/nodes.md shows) runs on as
// many boards, one per node: the fit report counts each node's Pods against
// one board's pod memory instead of every pod against one board.

// placedPod is a Pod of the manifests and the node it is pinned to.
type placedPod struct {
	name string // namespace/name
	node string // "" = not pinned: the scheduler spreads it
	// containers are the images of its containers and their memory limits
	// (0 = none).
	images []string
	limits []int64
}

// placedPods lists the Pods of objs in order with where they are pinned.
func placedPods(objs []manifest.Object) []placedPod {
	var out []placedPod
	for _, o := range objs {
		pod, ok := o.Obj.(*corev1.Pod)
		if !ok {
			continue
		}
		p := placedPod{name: pod.Namespace + "/" + pod.Name, node: nodeOf(pod.Spec)}
		for _, c := range pod.Spec.Containers {
			p.images = append(p.images, c.Image)
			var limit int64
			if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
				limit = q.Value()
			}
			p.limits = append(p.limits, limit)
		}
		out = append(out, p)
	}
	return out
}

// nodeOf names the node a Pod spec pins it to: its nodeName, the hostname
// its nodeSelector asks for, or else its nodeSelector as such (build cannot
// know how many boards carry those labels, so it counts them as one).
func nodeOf(spec corev1.PodSpec) string {
	if spec.NodeName != "" {
		return spec.NodeName
	}
	if h := spec.NodeSelector[corev1.LabelHostname]; h != "" {
		return h
	}
	if len(spec.NodeSelector) == 0 {
		return ""
	}
	var labels []string
	for k, v := range spec.NodeSelector {
		labels = append(labels, k+"="+v)
	}
	sort.Strings(labels)
	return "nodeSelector " + strings.Join(labels, ",")
}

// nodeLoad is what the Pods on one node count.
type nodeLoad struct {
	node    string
	counted int64
	pods    []string // "default/p0 64.0 KiB"
}

// spreadPods places the Pods on nodes: each pinned Pod on its node, then
// the others, largest first, on the node with the most room left, as the
// scheduler spreads them (docs/nodes.md). counted says what a Pod counts.
// It returns nil unless the Pods are pinned to two nodes or more: such an
// app is fitted to one board.
func spreadPods(pods []placedPod, counted func(placedPod) int64) []nodeLoad {
	var loads []nodeLoad
	index := map[string]int{}
	var free []placedPod
	for _, p := range pods {
		if p.node == "" {
			free = append(free, p)
			continue
		}
		i, ok := index[p.node]
		if !ok {
			i = len(loads)
			index[p.node] = i
			loads = append(loads, nodeLoad{node: p.node})
		}
		loads[i].add(p, counted(p))
	}
	if len(loads) < 2 {
		return nil
	}
	sort.SliceStable(free, func(i, j int) bool { return counted(free[i]) > counted(free[j]) })
	for _, p := range free {
		best := 0
		for i := range loads {
			if loads[i].counted < loads[best].counted {
				best = i
			}
		}
		loads[best].add(p, counted(p))
	}
	return loads
}

func (l *nodeLoad) add(p placedPod, n int64) {
	l.counted += n
	l.pods = append(l.pods, fmt.Sprintf("%s %s", p.name, FormatSize(n)))
}
