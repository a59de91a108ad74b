package kubelet

import (
	"context"
	"errors"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/call"
	"github.com/kube32/kube32/host/internal/lograte"
	"github.com/kube32/kube32/host/internal/netpol"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/pod"
	"github.com/kube32/kube32/host/store"
)

// syncPolicies tells the Source the pods of this sync, before any of them
// starts: a worker loads their namespaces' NetworkPolicies then.
func (k *Kubelet) syncPolicies(ctx context.Context, pods map[store.Key]*corev1.Pod) {
	list := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		list = append(list, p)
	}
	k.cfg.Source.PodsSynced(ctx, list)
}

// allowHost is call.Outside.Allow: NetworkPolicy for a host outside the
// cluster.
func (k *Kubelet) allowHost(ctx context.Context, from string, addr netip.AddrPort) error {
	d := k.evaluate(ctx, from, netpol.Dest{Addr: addr.Addr(), Port: int32(addr.Port())})
	if !d.Allowed {
		return &call.DeniedError{From: from, Target: addr.String(), Reason: d.Reason}
	}
	return nil
}

// allowBackend is call.Cluster.Allow: NetworkPolicy for a pod behind a
// Service.
func (k *Kubelet) allowBackend(ctx context.Context, from string, b service.Backend) error {
	ip, _ := netip.ParseAddr(b.IP) // an unknown IP matches no ipBlock
	dest := netpol.Dest{Addr: ip, Port: b.Port, Namespace: b.Namespace, Name: b.Name,
		Pod: func() (*corev1.Pod, error) { return k.cfg.Source.TargetPod(ctx, b.Namespace, b.Name) }}
	if d := k.evaluate(ctx, from, dest); !d.Allowed {
		return errors.New(d.Reason)
	}
	return nil
}

// evaluate decides a connection of the pod from ("<namespace>/<name>"). A
// node that cannot tell the policies of the pod's namespace denies it.
func (k *Kubelet) evaluate(ctx context.Context, from string, to netpol.Dest) netpol.Decision {
	src := k.cfg.Source
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

// deniedLogger is the pod.Caller of the kubelet's pods: call.Caller, and
// for a connection NetworkPolicy refused the node's line "[NETPOL] <pod>
// -> <target> denied: <reason>", at most once per abi.LogRateInterval on this node.
type deniedLogger struct {
	k      *Kubelet
	caller *call.Caller
	lines  lograte.Limiter
}

// HTTPCall implements pod.Caller.
func (l *deniedLogger) HTTPCall(ctx context.Context, c pod.Call) (pod.CallResult, error) {
	res, err := l.caller.HTTPCall(ctx, c)
	l.k.recordCall(c, res, err)
	var denied *call.DeniedError
	if errors.As(err, &denied) {
		l.log(denied)
	}
	return res, err
}

// log writes the [NETPOL] line to the node's log (Config.Log, under the
// calling pod's name, which serve prints on stderr), unless one was
// written less than a second ago. It is the node's line, not the pod's:
// kubectl logs does not show it.
func (l *deniedLogger) log(d *call.DeniedError) {
	if !l.lines.Allow() {
		return
	}
	namespace, name, _ := abi.SplitPodID(d.From)
	line := pod.Line{Time: time.Now(), Stream: "k32", Level: 2, Text: "[NETPOL] " + d.Error()}
	if l.k.cfg.Log != nil {
		l.k.cfg.Log(namespace, name, line)
	}
}

// outside is the node's call.Outside with NetworkPolicy checked before
// each connection (after any Allow of its own).
func (k *Kubelet) outside() *call.Outside {
	o := &call.Outside{}
	if k.cfg.Outside != nil {
		*o = *k.cfg.Outside
	}
	own := o.Allow
	o.Allow = func(ctx context.Context, from string, addr netip.AddrPort) error {
		if own != nil {
			if err := own(ctx, from, addr); err != nil {
				return err
			}
		}
		return k.allowHost(ctx, from, addr)
	}
	return o
}
