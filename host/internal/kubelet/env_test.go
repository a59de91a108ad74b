package kubelet

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/host/store"
	"github.com/kube32/kube32/internal/testenv"
	"github.com/kube32/kube32/internal/testpods"
)

// TestServiceVariablesAtPodStart runs real pods and reads what k32_env_get
// gives them (docs/kubectl.md, "Services, Endpoints and environment
// variables").
func TestServiceVariablesAtPodStart(t *testing.T) {
	wasm := testpods.Fixture(t, "envpod", 65536)
	n := startNode(t, imageTree(map[string][]byte{"envpod": wasm}))
	web := testPod("web-1", "wasm://embedded/envpod")
	web.Labels = map[string]string{"app": "web"}
	web.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 7000}}
	// The Service first: a pod's variables are those of the Services that
	// exist when it starts, and web-1 must see the one that selects it.
	n.store.Apply(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}},
	})
	n.store.Apply(web)
	n.waitPhase(t, "web-1", corev1.PodRunning)

	client := testPod("client", "wasm://embedded/envpod")
	noLinks := testPod("no-links", "wasm://embedded/envpod")
	off := false
	noLinks.Spec.EnableServiceLinks = &off
	own := testPod("own", "wasm://embedded/envpod", corev1.EnvVar{Name: "WEB_SERVICE_PORT", Value: "mine"})
	for _, p := range []*corev1.Pod{client, noLinks, own} {
		n.store.Apply(p)
	}
	testenv.Eventually(t, "the node's pods to settle", n.kubelet.Settled)

	for _, tt := range []struct {
		rule, pod string
		want      []string
	}{
		{"the host is the first ready address in the Service's Endpoints; the port is the resolved target port", "client",
			[]string{"WEB_SERVICE_HOST=127.0.0.1\n", "WEB_SERVICE_PORT=7000\n", "WEB_PORT=tcp://127.0.0.1:7000\n", "KUBERNETES_SERVICE_PORT=6443\n"}},
		{"the local node IP when the Service selects the starting pod itself", "web-1",
			[]string{"WEB_SERVICE_HOST=127.0.0.1\n", "WEB_SERVICE_PORT=7000\n"}},
		{"enableServiceLinks: false: no Service variables, KUBERNETES_SERVICE_* still", "no-links",
			[]string{"WEB_SERVICE_HOST=<unset>\n", "WEB_PORT=<unset>\n", "KUBERNETES_SERVICE_HOST=127.0.0.1\n"}},
		{"a container's own env wins over injected variables", "own",
			[]string{"WEB_SERVICE_PORT=mine\n", "WEB_SERVICE_HOST=127.0.0.1\n"}},
	} {
		status, body := n.call(t, "default/"+tt.pod, "/")
		if status != 200 {
			t.Fatalf("%s: %d %q", tt.pod, status, body)
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s (%s): answered %q, lacking %q", tt.rule, tt.pod, body, w)
			}
		}
	}
}

// TestDeletionTimestampEndsInRemoval: a pod deleted through the API keeps
// running as Terminating until its kubelet stopped it, then is gone.
func TestDeletionTimestampEndsInRemoval(t *testing.T) {
	wasm := testpods.Fixture(t, "envpod", 65536)
	n := startNode(t, imageTree(map[string][]byte{"envpod": wasm}))
	n.store.Apply(testPod("a", "wasm://embedded/envpod"))
	n.waitPhase(t, "a", corev1.PodRunning)
	key := store.Key{Kind: "Pod", Namespace: "default", Name: "a"}
	n.store.Update(key, func(o runtime.Object) bool {
		now := metav1.Now()
		o.(*corev1.Pod).DeletionTimestamp = &now
		return true
	})
	testenv.Eventually(t, "the kubelet to remove the terminating pod", func() bool {
		_, ok := n.store.Get(key)
		return !ok
	})
	if status, _ := n.call(t, "default/a", "/"); status != 404 {
		t.Errorf("the removed pod still answers: %d", status)
	}
}
