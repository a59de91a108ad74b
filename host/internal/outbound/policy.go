package outbound

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/lograte"
	"github.com/kube32/kube32/host/internal/netpol"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// PolicySource is what a node knows for NetworkPolicy
// (docs/networkpolicy.md): the object store on the control plane, the API
// server on a worker. The kubelet's Sources implement it.
type PolicySource interface {
	// Policies returns the NetworkPolicies of namespace, or why the node
	// does not know them (the calls of its pods are then denied).
	Policies(namespace string) ([]*networkingv1.NetworkPolicy, error)
	// CallerLabels returns the labels of the calling pod namespace/name.
	CallerLabels(namespace, name string) (map[string]string, bool)
	// NamespaceLabels returns a namespace's labels (nil when unknown).
	NamespaceLabels(ctx context.Context, name string) map[string]string
	// TargetPod reads a pod behind a Service, when a rule compares its
	// labels.
	TargetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
}

// ErrNoPolicySource is why a node without a PolicySource does not start:
// it could not tell which calls its pods' NetworkPolicies allow, and
// allowing them all would open what the policies close.
var ErrNoPolicySource = errors.New("no NetworkPolicy source: a node checks every call of its pods against their NetworkPolicies and cannot start without the objects to read them from")

// Policy is the node's one NetworkPolicy check: every way out of a pod —
// a Service on this node or another (CheckService), a host outside over
// http:// or https://, through the relay or the egress gateway
// (CheckHost) — asks it before it connects. It is built once per node (NewPolicy).
type Policy struct {
	// evaluate decides one connection: netpol.Evaluate over the source.
	evaluate func(ctx context.Context, from string, to netpol.Dest) netpol.Decision
	// pods reads a pod behind a Service, for rules that compare its labels.
	pods func(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	// log receives the node's [NETPOL] lines; nil logs nothing.
	log   func(namespace, name string, line pod.Line)
	lines lograte.Limiter
}

// NewPolicy returns the node's Policy over src. log receives "[NETPOL]
// <pod> -> <target> denied: <reason>" under the calling pod's name, at
// most once per abi.LogRateInterval on this node (nil logs nothing).
// Without a source it fails with ErrNoPolicySource.
func NewPolicy(src PolicySource, log func(namespace, name string, line pod.Line)) (*Policy, error) {
	if src == nil {
		return nil, ErrNoPolicySource
	}
	p := &Policy{log: log, pods: src.TargetPod}
	p.evaluate = func(ctx context.Context, from string, to netpol.Dest) netpol.Decision {
		return evaluate(ctx, src, from, to)
	}
	return p, nil
}

// CheckHost checks a connection of the pod from ("<namespace>/<name>") to
// addr, a host outside (an address destAddr made). A refusal is a
// *DeniedError (K32_ERR_PERM), which CheckHost logs as the node's [NETPOL]
// line unless ctx's caller logs refusals itself (callerLogs). A nil Policy
// refuses everything.
func (p *Policy) CheckHost(ctx context.Context, from string, addr netip.AddrPort) error {
	var err error
	if p == nil {
		err = &DeniedError{From: from, Target: addr.String(), Reason: ErrNoPolicySource.Error()}
	} else {
		err = p.checkHost(ctx, from, addr)
	}
	p.logRefusal(ctx, err)
	return err
}

// CheckService checks a call of the pod from to the Service svc
// ("<service>.<namespace>:<port>") and returns those of its ready pods
// the policies let it reach; it fails, as CheckHost does, when they let it
// reach none.
func (p *Policy) CheckService(ctx context.Context, from, svc string, backends []service.Backend) ([]service.Backend, error) {
	var allowed []service.Backend
	var err error
	if p == nil {
		err = &DeniedError{From: from, Target: svc, Reason: ErrNoPolicySource.Error()}
	} else {
		allowed, err = p.checkBackends(ctx, from, svc, backends)
	}
	p.logRefusal(ctx, err)
	return allowed, err
}

// logRefusal writes the [NETPOL] line of err when it is a refusal, unless
// ctx's caller logs refusals itself.
func (p *Policy) logRefusal(ctx context.Context, err error) {
	var denied *DeniedError
	if errors.As(err, &denied) && p != nil && ctx.Value(callerLogs{}) == nil {
		p.logDenied(denied)
	}
}

// callerLogs marks a context whose caller logs refusals itself: the
// egress gateway, whose refusal of a worker's pod is its [EGRESS] line
// (docs/calls.md), not this node's [NETPOL] one; and Outside.connect,
// which checks each address of a name and logs only the refusal the call
// ends with.
type callerLogs struct{}

// checkHost checks a connection to addr. An address of this machine is
// checked as itself and as 127.0.0.1, since it reaches the node itself: a
// policy that keeps a pod off loopback keeps it off the node's other
// addresses too.
func (p *Policy) checkHost(ctx context.Context, from string, addr netip.AddrPort) error {
	if err := p.hostAllowed(ctx, from, addr); err != nil || !ownAddr(addr.Addr()) {
		return err
	}
	err := p.hostAllowed(ctx, from, netip.AddrPortFrom(loopbackIP, addr.Port()))
	var denied *DeniedError
	if errors.As(err, &denied) {
		return &DeniedError{From: denied.From, Target: addr.String(),
			Reason: "an address of this node, checked as " + denied.Target + ": " + denied.Reason}
	}
	return err
}

// hostAllowed decides one address.
func (p *Policy) hostAllowed(ctx context.Context, from string, addr netip.AddrPort) error {
	d := p.evaluate(ctx, from, netpol.Dest{Addr: addr.Addr(), Port: int32(addr.Port())})
	if !d.Allowed {
		return &DeniedError{From: from, Target: addr.String(), Reason: d.Reason}
	}
	return nil
}

// checkBackends keeps the backends the policies let from connect to, or
// fails with the first refusal's reason when they let none.
func (p *Policy) checkBackends(ctx context.Context, from, svc string, backends []service.Backend) ([]service.Backend, error) {
	var ok []service.Backend
	var first string
	for _, b := range backends {
		ip, _ := netip.ParseAddr(b.IP) // an unknown IP matches no ipBlock
		dest := netpol.Dest{Addr: ip, Port: b.Port, Namespace: b.Namespace, Name: b.Name,
			Pod: func() (*corev1.Pod, error) { return p.targetPod(ctx, b) }}
		if d := p.evaluate(ctx, from, dest); d.Allowed {
			ok = append(ok, b)
		} else if first == "" {
			first = d.Reason
		}
	}
	if len(ok) > 0 {
		return ok, nil
	}
	reason := first
	if len(backends) > 1 {
		reason = fmt.Sprintf("none of its %d pods is allowed; %s: %s", len(backends), backends[0].ID(), reason)
	}
	return nil, &DeniedError{From: from, Target: svc, Reason: reason}
}

// targetPod reads the pod b from the source; a Policy built otherwise
// (tests) knows no pod behind a Service.
func (p *Policy) targetPod(ctx context.Context, b service.Backend) (*corev1.Pod, error) {
	if p.pods == nil {
		return nil, fmt.Errorf("pod %s not found", b.ID())
	}
	return p.pods(ctx, b.Namespace, b.Name)
}

// logDenied writes the [NETPOL] line to the node's log under the calling
// pod's name (serve prints it on stderr), unless one was written less
// than abi.LogRateInterval ago. It is the node's line, not the pod's:
// kubectl logs does not show it.
func (p *Policy) logDenied(d *DeniedError) {
	if p.log == nil || !p.lines.Allow() {
		return
	}
	namespace, name, _ := abi.SplitPodID(d.From)
	p.log(namespace, name, pod.Line{Time: time.Now(), Stream: "k32", Level: 2, Text: "[NETPOL] " + d.Error()})
}

// evaluate decides a connection of the pod from with what src knows. A
// node that cannot tell the policies of the pod's namespace denies it.
func evaluate(ctx context.Context, src PolicySource, from string, to netpol.Dest) netpol.Decision {
	namespace, name, _ := abi.SplitPodID(from)
	policies, err := src.Policies(namespace)
	if err != nil {
		return netpol.Decision{Reason: err.Error()}
	}
	if len(policies) == 0 {
		return netpol.Decision{Allowed: true, Reason: "no egress policy selects the pod"}
	}
	labels, ok := src.CallerLabels(namespace, name)
	if !ok {
		return netpol.Decision{Reason: "the node does not know the labels of pod " + from}
	}
	namespaces := func(ns string) map[string]string { return src.NamespaceLabels(ctx, ns) }
	return netpol.Evaluate(netpol.Pod{Namespace: namespace, Name: name, Labels: labels}, policies, namespaces, to)
}
