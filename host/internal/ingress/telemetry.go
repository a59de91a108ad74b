package ingress

import (
	"encoding/json"
	"net/http"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/kinds"
)

// Telemetry is the cluster telemetry JSON of abi.AnnotationClusterTelemetry
// and of the abi.TopicCluster event.
type Telemetry struct {
	Nodes []NodeTelemetry `json:"nodes"`
	// Pods counts the cluster's pods (not being deleted); Running those in
	// phase Running.
	Pods    int `json:"pods"`
	Running int `json:"running"`
	// Uptime is the control plane's uptime in whole seconds.
	Uptime int64 `json:"uptime"`
	// Time is when the telemetry was taken, milliseconds since the epoch.
	Time int64 `json:"time"`
}

// NodeTelemetry is one node of Telemetry.
type NodeTelemetry struct {
	Name  string `json:"name"`
	IP    string `json:"ip"`
	Ready bool   `json:"ready"`
	Pods  int    `json:"pods"` // pods bound to the node, not being deleted
}

// Telemetry reads the cluster's telemetry from the store.
func (c *Controller) Telemetry() Telemetry {
	t := Telemetry{Nodes: []NodeTelemetry{}, Uptime: int64(time.Since(c.ann.started) / time.Second), Time: time.Now().UnixMilli()}
	perNode := map[string]int{}
	for _, o := range c.cfg.Store.List(kinds.Pod, "") {
		p := o.(*corev1.Pod)
		if p.DeletionTimestamp != nil {
			continue
		}
		t.Pods++
		if p.Status.Phase == corev1.PodRunning {
			t.Running++
		}
		if p.Spec.NodeName != "" {
			perNode[p.Spec.NodeName]++
		}
	}
	for _, o := range c.cfg.Store.List(kinds.Node, "") {
		n := o.(*corev1.Node)
		nt := NodeTelemetry{Name: n.Name, Pods: perNode[n.Name]}
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				nt.IP = a.Address
			}
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				nt.Ready = cond.Status == corev1.ConditionTrue
			}
		}
		t.Nodes = append(t.Nodes, nt)
	}
	sort.Slice(t.Nodes, func(i, j int) bool { return t.Nodes[i].Name < t.Nodes[j].Name })
	return t
}

func (c *Controller) telemetryJSON() []byte {
	b, _ := json.Marshal(c.Telemetry())
	return b
}

// telemetryHandler serves abi.AnnotationClusterTelemetry.
type telemetryHandler struct{ c *Controller }

func (h telemetryHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed", "reason": "cluster telemetry answers GET and HEAD"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(append(h.c.telemetryJSON(), '\n'))
}
