package ingress

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/kinds"
	networkingv1 "k8s.io/api/networking/v1"
)

// stats is the abi.AnnotationStatsTopic message.
type stats struct {
	T       string `json:"t"` // always "stats", the SSE event name
	Ingress string `json:"ingress"`
	RPS     int64  `json:"rps"`
	Viewers int    `json:"viewers"`
}

// publishStats publishes, for each routed Ingress with abi.AnnotationStatsTopic,
// the requests it routed since the last call (every abi.StatsInterval, on
// the controller's tick) and its streams' viewers.
func (c *Controller) publishStats(ctx context.Context) {
	a := &c.ann
	a.mu.Lock()
	counts := make(map[string]int64, len(a.requests))
	for id, n := range a.requests {
		counts[id] = n.Swap(0)
	}
	a.mu.Unlock()
	hub := c.cfg.Channels
	if hub == nil {
		return
	}
	for _, ing := range c.routedIngresses() {
		topic := strings.TrimSpace(ing.Annotations[abi.AnnotationStatsTopic])
		if topic == "" {
			continue
		}
		id := ing.Namespace + "/" + ing.Name
		msg, _ := json.Marshal(stats{T: "stats", Ingress: id, RPS: counts[id], Viewers: a.viewers(id)})
		if err := hub.Publish(ctx, "ingress "+id, topic, msg); err != nil {
			c.logf("[INGRESS] %s: %s: %v", id, abi.AnnotationStatsTopic, err)
		}
	}
}

// routedIngresses are the Ingresses the controller routes (class kube32 or
// unset), in namespace/name order.
func (c *Controller) routedIngresses() []*networkingv1.Ingress {
	var out []*networkingv1.Ingress
	for _, o := range c.cfg.Store.List(kinds.Ingress, "") {
		ing := o.(*networkingv1.Ingress)
		if cls := ing.Spec.IngressClassName; cls != nil && *cls != abi.IngressClassName {
			continue
		}
		out = append(out, ing)
	}
	return out
}
