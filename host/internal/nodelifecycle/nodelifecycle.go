// Package nodelifecycle is the control plane's node controller, as
// kube-controller-manager's node lifecycle controller and pod garbage
// collector are (docs/nodes.md): a node whose Lease in
// abi.NamespaceNodeLease goes unrenewed for the grace period is marked
// Ready=Unknown and its pods not Ready, so that Endpoints and the Ingress
// drop them; a deleted Node takes its pods and its Lease with it.
package nodelifecycle

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// The condition of a silent node and the Event on each of its pods, as
// kube-controller-manager writes them.
const (
	ReasonNodeStatusUnknown  = "NodeStatusUnknown"
	MessageNodeStatusUnknown = "Kubelet stopped posting node status."
	reasonNodeNotReady       = "NodeNotReady"
	messageNodeNotReady      = "Node is not ready"
)

// Config configures the controller.
type Config struct {
	Store *store.Store
	// Grace is how long a node's Lease may go unrenewed before the node
	// is Ready=Unknown; 0 means abi.NodeMonitorGracePeriod.
	Grace time.Duration
	// Logf receives a line when a node goes silent (nil: none).
	Logf func(format string, args ...any)
}

// controller is the state of Run: when each node's Lease was last seen
// to change, by this process's clock, so that a node's clock does not
// matter.
type controller struct {
	cfg    Config
	probes map[string]probe
}

// probe is the last renewTime seen of a node's Lease and when it was seen.
type probe struct {
	renewTime metav1.MicroTime
	seen      time.Time
}

func newController(cfg Config) *controller {
	if cfg.Grace <= 0 {
		cfg.Grace = abi.NodeMonitorGracePeriod
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &controller{cfg: cfg, probes: map[string]probe{}}
}

// Run watches the Nodes and their Leases until ctx ends.
func Run(ctx context.Context, cfg Config) {
	c := newController(cfg)
	events, cancel := cfg.Store.Subscribe()
	defer cancel()
	tick := time.NewTicker(min(abi.NodeMonitorPeriod, c.cfg.Grace/4))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-events:
			if e.Key.Kind == kinds.Node && e.Type == store.Deleted {
				c.collect(e.Key.Name)
			}
		case <-tick.C:
			c.monitor(time.Now())
		}
	}
}

// monitor marks every node silent for longer than the grace period.
func (c *controller) monitor(now time.Time) {
	seen := map[string]bool{}
	for _, o := range c.cfg.Store.List(kinds.Node, "") {
		name := o.(*corev1.Node).Name
		seen[name] = true
		var renewed metav1.MicroTime
		if l, ok := c.cfg.Store.Get(store.Key{Kind: kinds.Lease, Namespace: abi.NamespaceNodeLease, Name: name}); ok {
			if t := l.(*coordinationv1.Lease).Spec.RenewTime; t != nil {
				renewed = *t
			}
		}
		p, known := c.probes[name]
		if !known || !p.renewTime.Equal(&renewed) {
			// A node seen for the first time gets the whole grace period.
			c.probes[name] = probe{renewTime: renewed, seen: now}
			continue
		}
		if now.Sub(p.seen) > c.cfg.Grace {
			c.markUnknown(name)
		}
	}
	for name := range c.probes {
		if !seen[name] {
			delete(c.probes, name)
		}
	}
}

// markUnknown sets a silent node's Ready condition Unknown and its pods'
// Ready condition False; the node's kubelet sets them back when it is
// heard again.
func (c *controller) markUnknown(node string) {
	_, changed := c.cfg.Store.Update(store.Key{Kind: kinds.Node, Name: node}, func(o runtime.Object) bool {
		n := o.(*corev1.Node)
		now := metav1.Now()
		for i, cond := range n.Status.Conditions {
			if cond.Type != corev1.NodeReady {
				continue
			}
			if cond.Status == corev1.ConditionUnknown {
				return false
			}
			n.Status.Conditions[i].Status = corev1.ConditionUnknown
			n.Status.Conditions[i].Reason = ReasonNodeStatusUnknown
			n.Status.Conditions[i].Message = MessageNodeStatusUnknown
			n.Status.Conditions[i].LastTransitionTime = now
			return true
		}
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{
			Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: ReasonNodeStatusUnknown,
			Message: MessageNodeStatusUnknown, LastTransitionTime: now,
		})
		return true
	})
	if changed {
		c.cfg.Logf("[NODE] %s: %s (no lease renewal for %s)", node, MessageNodeStatusUnknown, c.cfg.Grace)
	}
	for _, o := range c.cfg.Store.List(kinds.Pod, "") {
		p := o.(*corev1.Pod)
		if p.Spec.NodeName != node {
			continue
		}
		_, changed := c.cfg.Store.Update(store.KeyOf(p), func(o runtime.Object) bool { return markNotReady(o.(*corev1.Pod)) })
		if changed {
			c.cfg.Store.Record(p, store.EventSource{Component: "node-controller"}, corev1.EventTypeWarning, reasonNodeNotReady, messageNodeNotReady)
		}
	}
}

// markNotReady sets p's Ready condition False, reporting whether it was
// anything else.
func markNotReady(p *corev1.Pod) bool {
	for i, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady && cond.Status != corev1.ConditionFalse {
			p.Status.Conditions[i].Status = corev1.ConditionFalse
			p.Status.Conditions[i].LastTransitionTime = metav1.Now()
			return true
		}
	}
	return false
}

// collect deletes the pods bound to a deleted Node at once, as the pod
// garbage collector does, and the node's Lease.
func (c *controller) collect(node string) {
	for _, o := range c.cfg.Store.List(kinds.Pod, "") {
		if o.(*corev1.Pod).Spec.NodeName == node {
			c.cfg.Store.Delete(store.KeyOf(o))
		}
	}
	c.cfg.Store.Delete(store.Key{Kind: kinds.Lease, Namespace: abi.NamespaceNodeLease, Name: node})
	delete(c.probes, node)
}
