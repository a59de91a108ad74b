package kubelet

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testk8s"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// TestKubectlTopReadsKube32PodsThroughMetricsServer checks ResourceMetrics
// against the real metrics-server v0.8.0 of a real control plane: it
// scrapes the kubelet's /metrics/resource over HTTPS at the Node's
// InternalIP and kubelet endpoint port, and `kubectl top` shows the pods:
// the busy one's CPU above zero, the idle one's at zero (its counter
// floored, not left out), each memory its linear memory, and the node
// their sum.
func TestKubectlTopReadsKube32PodsThroughMetricsServer(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	n := startNode(t, imageTree(map[string][]byte{"relay": testpods.Fixture(t, "relay", 65536)}))
	for _, name := range []string{"busy", "idle"} {
		n.store.Apply(relayPod("default", name))
		n.waitPhase(t, name, corev1.PodRunning)
	}
	var scrapes atomic.Int64
	metrics := n.kubelet.ResourceMetrics()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics/resource", func(w http.ResponseWriter, r *http.Request) {
		scrapes.Add(1)
		metrics.ServeHTTP(w, r)
	})
	kubeletAPI := httptest.NewTLSServer(mux)
	t.Cleanup(kubeletAPI.Close)
	u, _ := url.Parse(kubeletAPI.URL)
	port, _ := strconv.Atoi(u.Port())

	c := testk8s.Start(t)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: c.URL, BearerToken: c.Token, TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The Node and Pods a kube32 node registers, by hand: the kubelet here
	// runs its pods from its own store.
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nodeName},
		Status: corev1.NodeStatus{
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(port)}},
			Capacity:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")},
			Allocatable:     corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")},
		},
	}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"busy", "idle"} {
		p := relayPod("default", name)
		p.Spec.Containers[0].SecurityContext = nil
		p, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// metrics-server lists only Running pods.
		p.Status.Phase = corev1.PodRunning
		if _, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// Pod busy runs callbacks back to back: about a core.
	stop := make(chan struct{})
	spun := make(chan struct{})
	go func() {
		defer close(spun)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n.tryRelay("default/busy", "spin 200\n")
		}
	}()
	t.Cleanup(func() { close(stop); <-spun })

	testk8s.StartMetricsServer(t, c)
	// metrics-server gives a figure once it has two scrapes of it.
	for i := int64(1); i <= 2; i++ {
		testenv.Eventually(t, fmt.Sprintf("metrics-server's scrape %d of the kubelet", i), func() bool { return scrapes.Load() >= i })
	}
	top := func(args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", c.Kubeconfig, "top"}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("kubectl top %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	var pods map[string][]string
	testenv.EventuallyNil(t, "kubectl top pod to show both pods", func() error {
		out, err := top("pod", "-n", "default", "--no-headers")
		if err != nil {
			return err
		}
		pods = map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				pods[f[0]] = f[1:]
			}
		}
		if len(pods) != 2 {
			return fmt.Errorf("kubectl top pod printed %q", out)
		}
		t.Logf("kubectl top pod:\n%s", out)
		return nil
	})
	if cpu := pods["busy"][0]; cpu == "0m" || !strings.HasSuffix(cpu, "m") {
		t.Errorf("pod busy: CPU %q, want above 0m (it spins most of the time)", cpu)
	}
	if cpu := pods["idle"][0]; cpu != "0m" {
		t.Errorf("pod idle: CPU %q, want 0m", cpu)
	}
	// kubectl prints memory in whole MiB; the object has the bytes.
	for _, name := range []string{"busy", "idle"} {
		got, err := cs.RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/" + name).DoRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), `"memory":"64Ki"`) {
			t.Errorf("pod %s's metrics: %s, want memory 64Ki, its linear memory", name, got)
		}
	}
	testenv.EventuallyNil(t, "kubectl top node to show the node", func() error {
		out, err := top("node", nodeName, "--no-headers")
		if err != nil {
			return err
		}
		if f := strings.Fields(out); len(f) != 5 || f[0] != nodeName || f[1] == "0m" || f[3] != "0Mi" {
			return fmt.Errorf("kubectl top node printed %q, want %s with CPU above 0m and its pods' 128Ki as 0Mi", out, nodeName)
		}
		t.Logf("kubectl top node:\n%s", out)
		return nil
	})
	got, err := cs.RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/nodes/" + nodeName).DoRaw(ctx)
	if err != nil || !strings.Contains(string(got), `"memory":"128Ki"`) {
		t.Errorf("node metrics: %s %v, want memory 128Ki, its pods' sum", got, err)
	}
}
