package build

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
)

// The fit report counts the Pods of the manifests as serve --board
// schedules them (docs/serve.md, "Board budgets"): each Pod object
// requests what its containers request (manifest.MemoryRequest, with the
// default memory limit for a container without request or limit), and a
// node holds Pods while its pod memory holds their requests and it holds
// one Pod per 64 KiB page of it. An app whose Pods are pinned to two or
// more nodes (spec.nodeName, or a nodeSelector, kubernetes.io/hostname as
// docs/nodes.md shows) runs on as many boards, one per node; any other app
// runs on one board.

// placedPod is a Pod of the manifests, where it is pinned and what its
// containers request.
type placedPod struct {
	name string // namespace/name
	node string // "" = not pinned: the scheduler places it
	// containers are its containers' images and what each requests.
	containers []placedContainer
}

// placedContainer is one container of a placedPod.
type placedContainer struct {
	image   string
	request int64 // manifest.MemoryRequest
	// defaulted: it sets neither a memory request nor a limit, and so
	// requests abi.DefaultMemoryLimit.
	defaulted bool
}

// request is what the Pod requests: its containers' requests together.
func (p placedPod) request() int64 {
	var n int64
	for _, c := range p.containers {
		n += c.request
	}
	return n
}

// placedPods lists the Pods of objs in order with where they are pinned.
func placedPods(objs []manifest.Object) []placedPod {
	var out []placedPod
	for _, o := range objs {
		pod, ok := o.Obj.(*corev1.Pod)
		if !ok {
			continue
		}
		p := placedPod{name: abi.PodID(pod.Namespace, pod.Name), node: nodeOf(pod.Spec)}
		for _, c := range pod.Spec.Containers {
			_, requested := c.Resources.Requests[corev1.ResourceMemory]
			_, limited := c.Resources.Limits[corev1.ResourceMemory]
			p.containers = append(p.containers, placedContainer{image: c.Image,
				request: manifest.MemoryRequest(c, abi.DefaultMemoryLimit), defaulted: !requested && !limited})
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

// nodeLoad is the Pods one node (one board) holds.
type nodeLoad struct {
	node string // "" for the one board of an app not pinned to two nodes
	pods []placedPod
}

// requested is what the node's Pods request together.
func (l *nodeLoad) requested() int64 {
	var n int64
	for _, p := range l.pods {
		n += p.request()
	}
	return n
}

// fits reports whether the node, on board, holds p beside its Pods: its
// pod memory their requests and p's, and one more Pod. Without a board
// every node holds any Pod.
func (l *nodeLoad) fits(p placedPod, board *abi.Board) bool {
	return board == nil || (l.requested()+p.request() <= board.PodMemory && int64(len(l.pods)) < board.MaxPods())
}

// placePods places the Pods on nodes, as the scheduler of serve --board
// does: each pinned Pod on its node, then the others in the order of the
// manifests, each on the node with the fewest Pods among those that hold
// it, by name on ties; a Pod that no node holds goes where the most pod
// memory is left, so that the report shows that node over. With Pods
// pinned to fewer than two nodes the app runs on one board, named by the
// one node Pods are pinned to ("" when none is), which holds every Pod.
func placePods(pods []placedPod, board *abi.Board) []nodeLoad {
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
		loads[i].pods = append(loads[i].pods, p)
	}
	if len(loads) < 2 {
		one := nodeLoad{pods: pods}
		if len(loads) == 1 {
			one.node = loads[0].node
		}
		return []nodeLoad{one}
	}
	sort.SliceStable(loads, func(i, j int) bool { return loads[i].node < loads[j].node })
	for _, p := range free {
		best := -1
		for i := range loads {
			if loads[i].fits(p, board) && (best < 0 || len(loads[i].pods) < len(loads[best].pods)) {
				best = i
			}
		}
		if best < 0 {
			best = 0
			for i := range loads {
				if loads[i].requested() < loads[best].requested() {
					best = i
				}
			}
		}
		loads[best].pods = append(loads[best].pods, p)
	}
	return loads
}

// describePods lists the Pods with what each requests: "default/p0 64.0 KiB".
func describePods(pods []placedPod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = fmt.Sprintf("%s %s", p.name, FormatSize(p.request()))
	}
	return out
}
