package netpol

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/kube32/kube32/abi"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pod is the calling pod as policies see it.
type Pod struct {
	Namespace, Name string
	Labels          map[string]string
}

// Dest is the destination of one connection.
type Dest struct {
	// Addr is the address connected to: the host outside the cluster, or
	// the pod IP of a pod behind a Service (its node's address). It may be
	// invalid when unknown, which no ipBlock matches.
	Addr netip.Addr
	// Port is the TCP port: the host's port, or the target port of the pod.
	Port int32
	// Namespace and Name name the pod behind a Service; Namespace is ""
	// for a host outside the cluster, which selectors never match.
	Namespace, Name string
	// Pod returns the pod behind a Service when a rule compares its labels
	// or container port names; nil, or an error, matches no such rule.
	// (Workers read it from the API server only then.)
	Pod func() (*corev1.Pod, error)
}

// Outside reports whether d is a host outside the cluster.
func (d Dest) Outside() bool { return d.Namespace == "" }

// String names d in messages: "<address>:<port>" for a host, "pod
// <namespace>/<name> (<address>:<port>)" for a pod.
func (d Dest) String() string {
	addr := "?"
	if d.Addr.IsValid() {
		addr = d.Addr.String()
	}
	hp := addr + ":" + strconv.Itoa(int(d.Port))
	if d.Outside() {
		return hp
	}
	return "pod " + d.Namespace + "/" + d.Name + " (" + hp + ")"
}

// Namespaces gives a namespace's labels; nil or a missing namespace means
// only the abi.LabelNamespaceName label every namespace carries.
type Namespaces func(name string) map[string]string

// Decision is the outcome of Evaluate.
type Decision struct {
	Allowed bool
	// Reason says why, for the node's [NETPOL] log line.
	Reason string
}

// Evaluate decides whether the pod from may open a connection to to under
// policies (those of from's namespace; others are ignored).
func Evaluate(from Pod, policies []*networkingv1.NetworkPolicy, namespaces Namespaces, to Dest) Decision {
	e := evaluation{from: from, namespaces: namespaces, to: to}
	var selecting []string
	for _, np := range policies {
		if np.Namespace != from.Namespace || !hasEgress(np) || !selectorMatches(&np.Spec.PodSelector, from.Labels) {
			continue
		}
		selecting = append(selecting, np.Namespace+"/"+np.Name)
		for _, rule := range np.Spec.Egress {
			if e.portsMatch(rule.Ports) && e.peersMatch(np.Namespace, rule.To) {
				return Decision{Allowed: true, Reason: "allowed by NetworkPolicy " + np.Namespace + "/" + np.Name}
			}
		}
	}
	if len(selecting) == 0 {
		return Decision{Allowed: true, Reason: "no egress policy selects the pod"}
	}
	reason := fmt.Sprintf("no egress rule of NetworkPolicy %s allows TCP to %s", strings.Join(selecting, ", "), to)
	if e.podErr != nil {
		reason += " (reading the pod: " + e.podErr.Error() + ")"
	}
	return Decision{Reason: reason}
}

// hasEgress reports whether the policy restricts egress: Egress in
// spec.policyTypes, or, when the API server has not defaulted them, egress
// rules (kube-apiserver's default).
func hasEgress(np *networkingv1.NetworkPolicy) bool {
	if len(np.Spec.PolicyTypes) == 0 {
		return len(np.Spec.Egress) > 0
	}
	for _, t := range np.Spec.PolicyTypes {
		if t == networkingv1.PolicyTypeEgress {
			return true
		}
	}
	return false
}

// evaluation is one Evaluate: the destination pod is read at most once.
type evaluation struct {
	from       Pod
	namespaces Namespaces
	to         Dest

	pod    *corev1.Pod
	podErr error
	read   bool
}

// targetPod returns the pod behind the Service, reading it on first use.
func (e *evaluation) targetPod() *corev1.Pod {
	if !e.read {
		e.read = true
		if e.to.Pod != nil {
			e.pod, e.podErr = e.to.Pod()
		}
	}
	return e.pod
}

// portsMatch: "a rule without ports [matches] every port"; otherwise one
// of them must match.
func (e *evaluation) portsMatch(ports []networkingv1.NetworkPolicyPort) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if e.portMatches(p) {
			return true
		}
	}
	return false
}

// portMatches: "port matches the target port of a pod behind a Service or
// the port of a host, as a number, as a range up to endPort, or as the name
// of a containerPort of the target pod. Only protocol: TCP matches."
func (e *evaluation) portMatches(p networkingv1.NetworkPolicyPort) bool {
	if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP {
		return false
	}
	switch {
	case p.Port == nil:
		return true
	case p.Port.Type == intstr.Int:
		if p.EndPort != nil {
			return p.Port.IntVal <= e.to.Port && e.to.Port <= *p.EndPort
		}
		return p.Port.IntVal == e.to.Port
	}
	if e.to.Outside() {
		return false // a host has no named ports
	}
	pod := e.targetPod()
	if pod == nil {
		return false
	}
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == p.Port.StrVal && cp.ContainerPort == e.to.Port &&
				(cp.Protocol == "" || cp.Protocol == corev1.ProtocolTCP) {
				return true
			}
		}
	}
	return false
}

// peersMatch: "a rule without to matches every destination"; otherwise
// one of its peers must match.
func (e *evaluation) peersMatch(policyNamespace string, peers []networkingv1.NetworkPolicyPeer) bool {
	if len(peers) == 0 {
		return true
	}
	for _, peer := range peers {
		if e.peerMatches(policyNamespace, peer) {
			return true
		}
	}
	return false
}

func (e *evaluation) peerMatches(policyNamespace string, peer networkingv1.NetworkPolicyPeer) bool {
	if b := peer.IPBlock; b != nil {
		return ipBlockMatches(b, e.to.Addr)
	}
	if peer.PodSelector == nil && peer.NamespaceSelector == nil {
		return false // invalid: the API server refuses it
	}
	// "Selectors never match hosts outside the cluster."
	if e.to.Outside() {
		return false
	}
	if peer.NamespaceSelector == nil {
		// "podSelector alone matches pods in the policy's namespace."
		if e.to.Namespace != policyNamespace {
			return false
		}
	} else if !selectorMatches(peer.NamespaceSelector, e.namespaceLabels(e.to.Namespace)) {
		return false
	}
	if peer.PodSelector == nil {
		return true // every pod of the selected namespaces
	}
	if sel, err := metav1.LabelSelectorAsSelector(peer.PodSelector); err == nil && sel.Empty() {
		return true // {} selects every pod, without reading one
	}
	pod := e.targetPod()
	return pod != nil && selectorMatches(peer.PodSelector, pod.Labels)
}

// namespaceLabels are the labels of a namespace, always with its name label.
func (e *evaluation) namespaceLabels(name string) map[string]string {
	out := map[string]string{}
	if e.namespaces != nil {
		for k, v := range e.namespaces(name) {
			out[k] = v
		}
	}
	out[abi.LabelNamespaceName] = name
	return out
}

// ipBlockMatches: "ipBlock.cidr, minus the blocks in except, matches the
// destination address". Both are compared in their IPv4 form when they
// have one, so that 127.0.0.1 and ::ffff:127.0.0.1 are the same address to
// a block, however either is written.
func ipBlockMatches(b *networkingv1.IPBlock, addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	addr = addr.Unmap()
	cidr, err := parseBlock(b.CIDR)
	if err != nil || !cidr.Contains(addr) {
		return false
	}
	for _, except := range b.Except {
		if e, err := parseBlock(except); err == nil && e.Contains(addr) {
			return false
		}
	}
	return true
}

// parseBlock reads a CIDR; an IPv4-mapped IPv6 block (::ffff:a.b.c.d/n, n
// at least 96) is the IPv4 block it maps.
func parseBlock(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err == nil && p.Addr().Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p, err
}

// selectorMatches applies a label selector; an invalid one matches nothing.
func selectorMatches(s *metav1.LabelSelector, l map[string]string) bool {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(l))
}
