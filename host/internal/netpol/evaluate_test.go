package netpol

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/kube32/kube32/abi"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Builders for the tables below.

func policy(namespace, name string, selector map[string]string, egress ...networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: selector},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress:      egress,
		},
	}
}

func rule(ports []networkingv1.NetworkPolicyPort, to ...networkingv1.NetworkPolicyPeer) networkingv1.NetworkPolicyEgressRule {
	return networkingv1.NetworkPolicyEgressRule{Ports: ports, To: to}
}

func tcp(port int32) networkingv1.NetworkPolicyPort {
	p, proto := intstr.FromInt32(port), corev1.ProtocolTCP
	return networkingv1.NetworkPolicyPort{Protocol: &proto, Port: &p}
}

func tcpRange(port, end int32) networkingv1.NetworkPolicyPort {
	p := tcp(port)
	p.EndPort = &end
	return p
}

func named(name string) networkingv1.NetworkPolicyPort {
	p := intstr.FromString(name)
	return networkingv1.NetworkPolicyPort{Port: &p} // protocol left to default: TCP
}

func proto(p networkingv1.NetworkPolicyPort, protocol corev1.Protocol) networkingv1.NetworkPolicyPort {
	p.Protocol = &protocol
	return p
}

func ports(p ...networkingv1.NetworkPolicyPort) []networkingv1.NetworkPolicyPort { return p }

func ipBlock(cidr string, except ...string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr, Except: except}}
}

func podSel(l map[string]string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{MatchLabels: l}}
}

func nsSel(l map[string]string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchLabels: l}}
}

func nsPodSel(ns, pod map[string]string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchLabels: ns},
		PodSelector: &metav1.LabelSelector{MatchLabels: pod}}
}

func host(addr string, port int32) Dest {
	return Dest{Addr: netip.MustParseAddr(addr), Port: port}
}

// backend is the pod namespace/name with labels app=<name> and the
// containerPort "http" 8080, behind a Service at 127.0.0.2, target port.
func backend(namespace, name string, port int32) Dest {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
	}
	return Dest{Addr: netip.MustParseAddr("127.0.0.2"), Port: port, Namespace: namespace, Name: name,
		Pod: func() (*corev1.Pod, error) { return p, nil }}
}

var (
	probe    = Pod{Namespace: "default", Name: "probe", Labels: map[string]string{"app": "probe"}}
	selProbe = map[string]string{"app": "probe"}
	nsLabels = Namespaces(func(name string) map[string]string {
		if name == "team" {
			return map[string]string{"team": "blue"}
		}
		return nil
	})
)

func TestEvaluate(t *testing.T) {
	cases := []struct {
		spec     string // the rule of docs/networkpolicy.md the case checks
		policies []*networkingv1.NetworkPolicy
		to       Dest
		allowed  bool
	}{
		{"A pod that no policy with Egress in spec.policyTypes selects ... may open any connection.",
			nil, host("10.0.0.1", 80), true},
		{"A pod that no policy with Egress in spec.policyTypes selects ... may open any connection. (another pod selected)",
			[]*networkingv1.NetworkPolicy{policy("default", "other", map[string]string{"app": "other"})}, host("10.0.0.1", 80), true},
		{"A pod that no policy with Egress in spec.policyTypes selects (spec.podSelector, in the policy's namespace) ... (policy of another namespace)",
			[]*networkingv1.NetworkPolicy{policy("team", "deny", nil)}, host("10.0.0.1", 80), true},
		{"A pod that no policy with Egress in spec.policyTypes selects ... (an Ingress-only policy)",
			[]*networkingv1.NetworkPolicy{func() *networkingv1.NetworkPolicy {
				np := policy("default", "ingress", nil)
				np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
				return np
			}()}, host("10.0.0.1", 80), true},
		{"egress: [] allows none.",
			[]*networkingv1.NetworkPolicy{policy("default", "deny", selProbe)}, host("10.0.0.1", 80), false},
		{"egress: [] allows none. (an empty podSelector selects every pod)",
			[]*networkingv1.NetworkPolicy{policy("default", "deny", nil)}, backend("default", "b", 8080), false},
		{"A pod that such policies select may open only the connections that an egress rule of one of them allows.",
			[]*networkingv1.NetworkPolicy{policy("default", "deny", selProbe), policy("default", "web", nil, rule(ports(tcp(80))))},
			host("10.0.0.1", 80), true},
		{"A rule without to matches every destination, a rule without ports every port.",
			[]*networkingv1.NetworkPolicy{policy("default", "all", selProbe, rule(nil))}, backend("team", "x", 9), true},
		{"A rule allows a connection when one of its to peers and one of its ports match. (port mismatch)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcp(81)), ipBlock("10.0.0.0/8")))},
			host("10.0.0.1", 80), false},
		{"A rule allows a connection when one of its to peers and one of its ports match. (peer mismatch)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcp(80)), ipBlock("192.168.0.0/16")))},
			host("10.0.0.1", 80), false},
		{"A rule allows a connection when one of its to peers and one of its ports match. (second peer, second port)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcp(81), tcp(80)), ipBlock("192.168.0.0/16"), ipBlock("10.0.0.0/8")))},
			host("10.0.0.1", 80), true},
		{"ipBlock.cidr, minus the blocks in except, matches the destination address: the address of a host outside the cluster",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("0.0.0.0/0", "192.168.4.0/24")))},
			host("192.168.5.1", 80), true},
		{"ipBlock.cidr, minus the blocks in except ... (in except)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("0.0.0.0/0", "192.168.4.0/24")))},
			host("192.168.4.7", 80), false},
		// docs/networkpolicy.md, "Which address a policy sees": an address
		// and a block are compared in their IPv4 form.
		{"an IPv4 block matches the IPv4-mapped IPv6 form of its addresses (in except)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("0.0.0.0/0", "127.0.0.0/8")))},
			host("::ffff:127.0.0.1", 80), false},
		{"an IPv4 block matches the IPv4-mapped IPv6 form of its addresses (in cidr)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("10.0.0.0/8")))},
			host("::ffff:10.0.0.1", 80), true},
		{"an IPv4-mapped IPv6 block is the IPv4 block it maps (in except)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("0.0.0.0/0", "::ffff:127.0.0.0/104")))},
			host("127.0.0.1", 80), false},
		{"an IPv4-mapped IPv6 block is the IPv4 block it maps (in cidr)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("::ffff:10.0.0.0/104")))},
			host("10.0.0.1", 80), true},
		{"an IPv4-mapped IPv6 block is the IPv4 block it maps (outside it)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("::ffff:10.0.0.0/104")))},
			host("11.0.0.1", 80), false},
		{"ipBlock.cidr ... matches ... the pod IP of a pod behind a Service.",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("127.0.0.2/32")))},
			backend("default", "b", 8080), true},
		{"ipBlock.cidr ... matches ... the pod IP of a pod behind a Service. (another IP)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, ipBlock("127.0.0.3/32")))},
			backend("default", "b", 8080), false},
		{"podSelector alone matches pods in the policy's namespace.",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, podSel(map[string]string{"app": "b"})))},
			backend("default", "b", 8080), true},
		{"podSelector alone matches pods in the policy's namespace. (labels differ)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, podSel(map[string]string{"app": "c"})))},
			backend("default", "b", 8080), false},
		{"podSelector alone matches pods in the policy's namespace. (pod of another namespace)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, podSel(nil)))},
			backend("team", "b", 8080), false},
		{"podSelector and namespaceSelector match the pods behind a Service and their namespace",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, nsPodSel(map[string]string{"team": "blue"}, map[string]string{"app": "b"})))},
			backend("team", "b", 8080), true},
		{"podSelector and namespaceSelector match the pods behind a Service and their namespace (pod mismatch)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, nsPodSel(map[string]string{"team": "blue"}, map[string]string{"app": "c"})))},
			backend("team", "b", 8080), false},
		{"Every namespace carries the label kubernetes.io/metadata.name: <name>.",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, nsSel(map[string]string{abi.LabelNamespaceName: "other"})))},
			backend("other", "o", 8080), true},
		{"Every namespace carries the label kubernetes.io/metadata.name: <name>. (another namespace)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, nsSel(map[string]string{abi.LabelNamespaceName: "other"})))},
			backend("default", "b", 8080), false},
		{"Selectors never match hosts outside the cluster.",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(nil, podSel(nil), nsSel(nil)))},
			host("10.0.0.1", 80), false},
		{"port matches ... the port of a host, as a number",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcp(8000))))}, host("10.0.0.1", 8000), true},
		{"port matches the target port of a pod behind a Service ... as a number",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcp(8080))))}, backend("default", "b", 8080), true},
		{"port matches ... as a range up to endPort",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcpRange(8000, 8100))))}, host("10.0.0.1", 8100), true},
		{"port matches ... as a range up to endPort (past it)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcpRange(8000, 8100))))}, host("10.0.0.1", 8101), false},
		{"port matches ... as the name of a containerPort of the target pod.",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(named("http"))))}, backend("default", "b", 8080), true},
		{"port matches ... as the name of a containerPort of the target pod. (another target port)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(named("http"))))}, backend("default", "b", 8081), false},
		{"port matches ... as the name of a containerPort of the target pod. (a host has none)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(named("http"))))}, host("10.0.0.1", 8080), false},
		{"Only protocol: TCP matches.",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(proto(tcp(53), corev1.ProtocolUDP))))}, host("10.0.0.1", 53), false},
		{"Only protocol: TCP matches. (a protocol without a port)",
			[]*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(networkingv1.NetworkPolicyPort{Protocol: ptr(corev1.ProtocolSCTP)})))}, host("10.0.0.1", 53), false},
		{"From examples/egress-policy.yaml ... reach TCP port 8000 on hosts outside the cluster access point's subnet",
			[]*networkingv1.NetworkPolicy{examplePolicy()}, host("93.184.216.34", 8000), true},
		{"From examples/egress-policy.yaml ... and nothing else (another port)",
			[]*networkingv1.NetworkPolicy{examplePolicy()}, host("93.184.216.34", 80), false},
		{"From examples/egress-policy.yaml ... and nothing else (the access point's subnet)",
			[]*networkingv1.NetworkPolicy{examplePolicy()}, host("192.168.4.1", 8000), false},
	}
	for _, c := range cases {
		got := Evaluate(probe, c.policies, nsLabels, c.to)
		if got.Allowed != c.allowed {
			t.Errorf("%s\n  %s: allowed=%v, want %v (%s)", c.spec, c.to, got.Allowed, c.allowed, got.Reason)
		}
		if got.Reason == "" {
			t.Errorf("%s: no reason", c.spec)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// examplePolicy is examples/egress-policy.yaml.
func examplePolicy() *networkingv1.NetworkPolicy {
	return policy("default", "egress-probe", map[string]string{"app": "probe"},
		rule(ports(tcp(8000)), ipBlock("0.0.0.0/0", "192.168.4.0/24")))
}

// "The API server ... defaults spec.policyTypes (Ingress, plus Egress when
// the policy has egress rules)": a policy stored without them (as tests
// apply to the store) is read as defaulted.
func TestUndefaultedPolicyTypes(t *testing.T) {
	np := policy("default", "p", selProbe, rule(ports(tcp(80))))
	np.Spec.PolicyTypes = nil
	if d := Evaluate(probe, []*networkingv1.NetworkPolicy{np}, nil, host("10.0.0.1", 81)); d.Allowed {
		t.Errorf("egress rules without policyTypes restrict egress: %+v", d)
	}
	np.Spec.Egress = nil // Ingress only, by default
	if d := Evaluate(probe, []*networkingv1.NetworkPolicy{np}, nil, host("10.0.0.1", 81)); !d.Allowed {
		t.Errorf("no egress rules and no policyTypes is Ingress only: %+v", d)
	}
}

// A worker reads the pod behind a Service only when a rule compares its
// labels or port names.
func TestTargetPodReadOnlyWhenNeeded(t *testing.T) {
	reads := 0
	to := backend("default", "b", 8080)
	to.Pod = func() (*corev1.Pod, error) { reads++; return nil, errors.New("API server unreachable") }
	allowAll := []*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(tcp(8080)), podSel(nil)))}
	if d := Evaluate(probe, allowAll, nil, to); !d.Allowed || reads != 0 {
		t.Errorf("podSelector {} and a port number: allowed=%v after %d reads, want true after 0", d.Allowed, reads)
	}
	byLabel := []*networkingv1.NetworkPolicy{policy("default", "p", selProbe, rule(ports(named("http")), podSel(map[string]string{"app": "b"})))}
	d := Evaluate(probe, byLabel, nil, to)
	if d.Allowed || reads != 1 {
		t.Errorf("a pod that cannot be read: allowed=%v after %d reads, want false after 1", d.Allowed, reads)
	}
	t.Log(d.Reason)
}
