package kubelet

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// nodeLog collects the lines a kubelet logs.
type nodeLog struct{ testenv.Lines }

func (l *nodeLog) add(namespace, name string, line pod.Line) {
	l.Logf("[%s/%s] %s", namespace, name, line.Text)
}

// netpolNode runs, on a kubelet whose log lines are kept, relay pods a
// (the caller), b and c (labelled tier=back, with the containerPort "web"
// 8080) in default and o in the namespace other (labelled team=blue),
// each behind a Service of its name, and the Service "back" selecting b
// and c.
func netpolNode(t *testing.T) (*node, *nodeLog) {
	t.Helper()
	log := &nodeLog{}
	n := &node{store: store.New()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.kubelet.PodServer().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	n.podURL = srv.URL
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	n.podPort, _ = strconv.Atoi(port)
	n.kubelet = newKubelet(t, Config{NodeName: nodeName, NodeIP: "127.0.0.1", PodPort: n.podPort, ControlPlane: true,
		Store: n.store, Images: imageTree(map[string][]byte{"relay": testpods.Fixture(t, "relay", 65536)}),
		HandlerTimeout: 2 * time.Second, APIHost: apiHost, APIPort: apiPort, Log: log.add})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); n.kubelet.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	n.store.Apply(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other",
		Labels: map[string]string{"team": "blue", "kubernetes.io/metadata.name": "other"}}})
	var pods []*corev1.Pod
	for _, key := range []string{"default/a", "default/b", "default/c", "other/o"} {
		namespace, name, _ := strings.Cut(key, "/")
		p := relayPod(namespace, name)
		if name == "b" || name == "c" {
			p.Labels["tier"] = "back"
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "web", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
		}
		pods = append(pods, p)
		n.store.Apply(p)
		n.store.Apply(relayService(namespace, name, name))
	}
	back := relayService("default", "back", "")
	back.Spec.Selector = map[string]string{"tier": "back"}
	n.store.Apply(back)
	for _, p := range pods {
		testenv.Eventually(t, "pod "+p.Namespace+"/"+p.Name+" ready", func() bool {
			o, ok := n.store.Get(store.KeyOf(p))
			return ok && podReady(o.(*corev1.Pod))
		})
	}
	return n, log
}

// egressPolicy selects the pod app=<app> in default, with these egress rules.
func egressPolicy(name, app string, rules ...networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress:      rules,
		},
	}
}

func tcpPort(port intstr.IntOrString) networkingv1.NetworkPolicyPort {
	tcp := corev1.ProtocolTCP
	return networkingv1.NetworkPolicyPort{Protocol: &tcp, Port: &port}
}

// httpHost is a host outside the cluster on 127.0.0.1 answering 200 "host".
func httpHost(t *testing.T) (*httptest.Server, int) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Relay", "host")
		fmt.Fprint(w, "host")
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	return srv, p
}

func TestNetworkPolicyEgress(t *testing.T) {
	n, log := netpolNode(t)
	host1, port1 := httpHost(t)
	host2, _ := httpHost(t)
	call := func(url string) string { return n.relay(t, "default/a", "call GET "+url+" 0 4096\n") }
	// apply replaces the policies of default with these: "The control plane
	// reads policies, pods and namespaces from its object store. A change
	// applies from the next call."
	apply := func(policies ...*networkingv1.NetworkPolicy) {
		for _, o := range n.store.List("NetworkPolicy", "default") {
			n.store.Delete(store.KeyOf(o))
		}
		for _, p := range policies {
			n.store.Apply(p)
		}
	}

	t.Run("A pod that no policy with Egress in spec.policyTypes selects may open any connection", func(t *testing.T) {
		apply(egressPolicy("others", "nobody"))
		testpods.Contains(t, call("http://b/"), "call rc=200 ", "x-relay=b\n")
		testpods.Contains(t, call(host1.URL+"/"), "call rc=200 ", "x-relay=host\n")
	})

	t.Run("egress: [] allows none; the call returns K32_ERR_PERM and the node logs [NETPOL]", func(t *testing.T) {
		apply(egressPolicy("deny", "a"))
		testpods.Contains(t, call("http://b/"), testpods.CallRC(abi.ErrPerm))
		testpods.Contains(t, call(host1.URL+"/"), testpods.CallRC(abi.ErrPerm))
		testpods.Contains(t, call("http://o.other/"), testpods.CallRC(abi.ErrPerm))
		// Another pod is not selected.
		testpods.Contains(t, n.relay(t, "default/b", "call GET http://c/ 0 4096\n"), "call rc=200 ", "x-relay=c\n")
		testenv.Eventually(t, "the [NETPOL] line", func() bool {
			return strings.Contains(log.String(), "[default/a] [NETPOL] default/a -> b.default denied: no egress rule of NetworkPolicy default/deny")
		})
	})

	t.Run("podSelector alone matches pods in the policy's namespace", func(t *testing.T) {
		apply(egressPolicy("to-b", "a", networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{
			{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "b"}}}}}))
		testpods.Contains(t, call("http://b/"), "call rc=200 ", "x-relay=b\n")
		testpods.Contains(t, call("http://c/"), testpods.CallRC(abi.ErrPerm))
		testpods.Contains(t, call("http://b.other/"), testpods.CallRC(abi.ErrNoEnt)) // no such Service: name lookups are not subject to policy
		testpods.Contains(t, call(host1.URL+"/"), testpods.CallRC(abi.ErrPerm))
	})

	t.Run("namespaceSelector matches the namespace of the pods behind a Service", func(t *testing.T) {
		apply(egressPolicy("to-blue", "a", networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "blue"}}}}}))
		testpods.Contains(t, call("http://o.other/"), "call rc=200 ", "x-relay=o\n")
		testpods.Contains(t, call("http://b/"), testpods.CallRC(abi.ErrPerm))
	})

	t.Run("port matches the target port as the name of a containerPort of the target pod", func(t *testing.T) {
		apply(egressPolicy("to-web", "a", networkingv1.NetworkPolicyEgressRule{
			Ports: []networkingv1.NetworkPolicyPort{tcpPort(intstr.FromString("web"))}}))
		testpods.Contains(t, call("http://b:80/"), "call rc=200 ", "x-relay=b\n")   // target port 8080, "web"
		testpods.Contains(t, call("http://b:81/"), testpods.CallRC(abi.ErrPerm))    // target port 8081
		testpods.Contains(t, call("http://o.other/"), testpods.CallRC(abi.ErrPerm)) // o has no port "web"
	})

	t.Run("ipBlock matches the address of a host outside the cluster, port its port", func(t *testing.T) {
		apply(egressPolicy("to-host", "a", networkingv1.NetworkPolicyEgressRule{
			To:    []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "127.0.0.0/8"}}},
			Ports: []networkingv1.NetworkPolicyPort{tcpPort(intstr.FromInt(port1))}}))
		testpods.Contains(t, call(host1.URL+"/"), "call rc=200 ", "x-relay=host\n")
		testpods.Contains(t, call(host2.URL+"/"), testpods.CallRC(abi.ErrPerm))
		testpods.Contains(t, call("http://b/"), testpods.CallRC(abi.ErrPerm)) // pod IP 127.0.0.1, but target port 8080
	})

	t.Run("ipBlock matches the pod IP of a pod behind a Service", func(t *testing.T) {
		apply(egressPolicy("to-node", "a", networkingv1.NetworkPolicyEgressRule{
			To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "127.0.0.1/32"}}}}))
		testpods.Contains(t, call("http://b/"), "call rc=200 ", "x-relay=b\n")
		apply(egressPolicy("to-node", "a", networkingv1.NetworkPolicyEgressRule{
			To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"127.0.0.1/32"}}}}}))
		testpods.Contains(t, call("http://b/"), testpods.CallRC(abi.ErrPerm))
	})

	t.Run("A call to a Service goes to one of its pods that the policies allow", func(t *testing.T) {
		apply(egressPolicy("to-c", "a", networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{
			{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "c"}}}}}))
		for i := 0; i < 6; i++ {
			testpods.Contains(t, call("http://back/"), "call rc=200 ", "x-relay=c\n")
		}
		apply(egressPolicy("to-o", "a", networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{
			{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "o"}}}}}))
		testpods.Contains(t, call("http://back/"), testpods.CallRC(abi.ErrPerm))
	})

	t.Run("a change to the calling pod's labels applies from the next call", func(t *testing.T) {
		apply(egressPolicy("deny", "a"))
		testpods.Contains(t, call("http://b/"), testpods.CallRC(abi.ErrPerm))
		n.store.Update(store.Key{Kind: "Pod", Namespace: "default", Name: "a"}, func(o runtime.Object) bool {
			o.(*corev1.Pod).Labels["app"] = "a2"
			return true
		})
		testpods.Contains(t, call("http://b/"), "call rc=200 ")
	})
	apply()
	t.Logf("node log:\n%s", log)
}
