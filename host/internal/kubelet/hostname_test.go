package kubelet

import (
	"context"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A Node of a Kubernetes cluster lists a Hostname address only when the
// name leads to the node: kube-apiserver dials it before the InternalIP
// by default, and a name that does not resolve there breaks kubectl logs
// and port-forward (docs/kubernetes.md, "What the API server needs").
// localhost resolves to 127.0.0.1 through the machine's hosts file.
func TestNodeHostnameResolvesToTheNode(t *testing.T) {
	ctx := context.Background()
	if name, err := NodeHostname(ctx, "LocalHost", "127.0.0.1"); name != "localhost" || err != nil {
		t.Errorf("--hostname-override LocalHost on 127.0.0.1: %q, %v; want localhost (lower case, as a kubelet's) and no error", name, err)
	}
	// An override is the user's word, as a kubelet's: kept, with a warning
	// when it leads elsewhere.
	if name, err := NodeHostname(ctx, "localhost", "127.0.0.2"); name != "localhost" || err == nil || !strings.Contains(err.Error(), "not to the node IP 127.0.0.2") {
		t.Errorf("--hostname-override localhost on 127.0.0.2: %q, %v; want localhost and an error saying it resolves elsewhere", name, err)
	}
	if name, err := NodeHostname(ctx, "kube32-a.invalid", "127.0.0.1"); name != "kube32-a.invalid" || err == nil || !strings.Contains(err.Error(), "does not resolve") {
		t.Errorf("--hostname-override kube32-a.invalid: %q, %v; want it kept and an error saying it does not resolve", name, err)
	}

	// Without an override, the machine's name, only where it resolves.
	machine, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	addrs, _ := net.LookupHost(machine)
	for _, ip := range addrs {
		if name, err := NodeHostname(ctx, "", ip); name != strings.ToLower(machine) || err != nil {
			t.Errorf("no override, node IP %s (where %s resolves): %q, %v; want the machine's name", ip, machine, name, err)
		}
	}
	elsewhere := "127.0.0.254"
	if slices.Contains(addrs, elsewhere) {
		t.Fatalf("%s resolves to %s; the test needs an address it does not", machine, elsewhere)
	}
	if name, err := NodeHostname(ctx, "", elsewhere); name != "" || err != nil {
		t.Errorf("no override, node IP %s (where %s does not resolve): %q, %v; want no Hostname address", elsewhere, machine, name, err)
	}
}

// The Node lists its InternalIP, and a Hostname address only when one was
// given: never its name, which need not resolve.
func TestNodeAddressesAreOnesThatResolve(t *testing.T) {
	for _, c := range []struct {
		kubernetes *KubernetesNode
		want       []corev1.NodeAddress
	}{
		{nil, []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.2"}}},
		{&KubernetesNode{KubeletPort: 10250}, []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.2"}}},
		{&KubernetesNode{KubeletPort: 10250, Hostname: "localhost"}, []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "127.0.0.2"}, {Type: corev1.NodeHostName, Address: "localhost"}}},
	} {
		k := newKubelet(t, Config{NodeName: "kube32-a", NodeIP: "127.0.0.2", Kubernetes: c.kubernetes})
		if got := k.nodeObject().Status.Addresses; !reflect.DeepEqual(got, c.want) {
			t.Errorf("Kubernetes %+v: addresses %v, want %v", c.kubernetes, got, c.want)
		}
	}
}
