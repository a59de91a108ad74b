package service

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
)

// A node's pod port is its kubelet endpoint's on the boards and under
// serve, and abi.AnnotationPodPort's on a Kubernetes cluster, whose
// kubelet endpoint is the kubelet API (docs/kubernetes.md).
func TestNodeAddrReadsThePodPortAnnotationFirst(t *testing.T) {
	node := func(annotations map[string]string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: annotations},
			Status: corev1.NodeStatus{
				Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.7"}},
				DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			},
		}
	}
	for _, c := range []struct {
		annotations map[string]string
		want        string
	}{
		{nil, "127.0.0.7:10250"},
		{map[string]string{abi.AnnotationPodPort: "7000"}, "127.0.0.7:7000"},
		{map[string]string{abi.AnnotationPodPort: "seven"}, ""},
		{map[string]string{abi.AnnotationPodPort: "70000"}, ""},
	} {
		if got := NodeAddr(node(c.annotations)); got != c.want {
			t.Errorf("NodeAddr with annotations %v = %q, want %q", c.annotations, got, c.want)
		}
	}
}
