package cluster

import "github.com/kube32/kube32/host/internal/pod"

// nodeLogs serves `kubectl logs` for the pods of every node of this
// process: the control plane's and those of its in-process workers. (A
// worker in another process keeps its pods' logs to itself.)
type nodeLogs struct{ c *Cluster }

// FollowLogs asks each node in turn for the pod.
func (l nodeLogs) FollowLogs(namespace, name string) ([]pod.Line, <-chan pod.Line, func(), bool) {
	if lines, next, stop, ok := l.c.Kubelet.FollowLogs(namespace, name); ok {
		return lines, next, stop, true
	}
	for _, w := range l.c.workers() {
		if lines, next, stop, ok := w.Kubelet.FollowLogs(namespace, name); ok {
			return lines, next, stop, true
		}
	}
	return nil, nil, nil, false
}
