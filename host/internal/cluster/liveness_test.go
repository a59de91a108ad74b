package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/host/internal/nodelifecycle"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// buildKube32 builds the kube32 binary for a test that runs a node in a
// process of its own.
func buildKube32(t testing.TB) string {
	t.Helper()
	goTool := testenv.Tool(t, "go")
	bin := filepath.Join(t.TempDir(), "kube32")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../../../cli/kube32").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// joinedNode is `kube32 node --join` running in a process of its own.
type joinedNode struct {
	cmd    *exec.Cmd
	exited chan struct{}
	out    *testenv.Buffer
}

// joinNode starts `kube32 node --join api` with token as node name on ip,
// with the extra flags; the process is killed when the test ends.
func joinNode(t testing.TB, bin, api, token, ip, name, images string, flags ...string) *joinedNode {
	t.Helper()
	args := append([]string{"node", "--join", api, "--token", token, "--node-ip", ip,
		"--pod-port", strconv.Itoa(testenv.FreePort(t, ip)), "--name", name, "--images", images}, flags...)
	n := &joinedNode{cmd: exec.Command(bin, args...), exited: make(chan struct{}), out: &testenv.Buffer{}}
	n.cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "HOME="+t.TempDir())
	n.cmd.Stdout, n.cmd.Stderr = n.out, n.out
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { n.cmd.Wait(); close(n.exited) }()
	t.Cleanup(func() {
		n.kill()
		if t.Failed() {
			t.Logf("kube32 node %s:\n%s", name, n.out.String())
		}
	})
	return n
}

// kill ends the node with SIGKILL, without a word to the control plane,
// and waits until the process is gone.
func (n *joinedNode) kill() {
	n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.exited
}

// nodeReady is the Ready condition of Node name in s, "" when it has none
// or is gone.
func nodeReady(s *store.Store, name string) (corev1.NodeCondition, bool) {
	o, ok := s.Get(store.Key{Kind: "Node", Name: name})
	if !ok {
		return corev1.NodeCondition{}, false
	}
	for _, c := range o.(*corev1.Node).Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c, true
		}
	}
	return corev1.NodeCondition{}, true
}

// TestWorkerLiveness runs a worker as `kube32 node --join` in a process of
// its own, with a short lease renewal and grace period, and no token:
// kubectl sends none to a plain-HTTP server. A control plane
// restarted on the same ports sees the still-running worker register
// again; after a SIGKILL of the worker, every ingress request to a Service
// with pods on both nodes succeeds, the Node becomes Ready=Unknown and its
// pod leaves the Endpoints.
func TestWorkerLiveness(t *testing.T) {
	images := fixtureImages(t, "relay")
	testenv.Tool(t, "clang")
	bin := buildKube32(t)
	const ip, ext = "127.0.0.11", "ext"
	objs := []manifest.Object{relay("web-cp", "web", ControlPlaneName), relay("web-ext", "web", ext), svc("web"), webIngress()}
	opts := Options{Images: os.DirFS(images), Objects: objs, HandlerTimeout: 5 * time.Second,
		IngressPort: testenv.FreePort(t, "127.0.0.1"), APIPort: testenv.FreePort(t, "127.0.0.1"), PodPort: testenv.FreePort(t, "127.0.0.1"),
		NodeGrace: 3 * time.Second, LeaseRenewInterval: 100 * time.Millisecond}
	first, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	worker := joinNode(t, bin, first.APIURL(), "", ip, ext, images, "--lease-renew-interval", "100ms")
	waitReadyPods(t, first, "web-cp", "web-ext")

	// The control plane restarts with an empty store: the worker, still
	// running, notices its Node is gone and registers again.
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	c := startReady(t, opts)
	testenv.Eventually(t, "the worker to register again with the restarted control plane", func() bool {
		cond, ok := nodeReady(c.Store, ext)
		return ok && cond.Status == corev1.ConditionTrue
	})
	ingress := func(what string) map[string]int {
		t.Helper()
		seen := map[string]int{}
		for i := range 20 {
			var r testhttp.Reply
			if i%2 == 0 {
				r = testhttp.Get(t, c.IngressURL()+"/get")
			} else {
				// The relay runs its body's commands: the call shows the
				// body reached the pod, even after a failed attempt.
				r = testhttp.Post(t, c.IngressURL()+"/post", "call GET http://web-cp.default.svc/ 0 16\n")
				if r.Status == 200 && !strings.Contains(r.Body, "call rc=") {
					t.Errorf("%s: POST %d: the pod did not get the body: %s", what, i, r)
				}
			}
			if r.Status != 200 || strings.Contains(r.Body, "dial tcp") {
				t.Errorf("%s: request %d: %s, want 200", what, i, r)
			}
			seen[r.Header.Get("X-Relay")]++
		}
		return seen
	}
	waitReadyPods(t, c, "web-cp", "web-ext")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil { // the routing table has both
		t.Fatal(err)
	}
	if seen := ingress("with both nodes alive"); seen["web-cp"] != 10 || seen["web-ext"] != 10 {
		t.Fatalf("answers by pod %v, want 10 each", seen)
	}

	t.Run("kubectl lists the Leases", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "kubeconfig")
		if err := kubeconfig.Write(cfg, kubeconfig.Entry{Server: c.APIURL()}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(testenv.Tool(t, "kubectl"), "--context", "kube32", "--cache-dir", t.TempDir(), "get", "leases", "-n", "kube-node-lease")
		cmd.Env = append(os.Environ(), "KUBECONFIG="+cfg)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl get leases: %v\n%s", err, out)
		}
		rows := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				rows[f[0]+" "+f[1]] = true
			}
		}
		for _, row := range []string{"NAME HOLDER", ControlPlaneName + " " + ControlPlaneName, ext + " " + ext} {
			if !rows[row] {
				t.Errorf("kubectl get leases:\n%s\nlacks a row %q", out, row)
			}
		}
	})

	worker.kill()
	t.Log(ingress("just after the worker was killed"))

	testenv.Eventually(t, "the killed worker's Node to be Ready=Unknown", func() bool {
		cond, _ := nodeReady(c.Store, ext)
		return cond.Status == corev1.ConditionUnknown
	})
	cond, _ := nodeReady(c.Store, ext)
	if cond.Reason != nodelifecycle.ReasonNodeStatusUnknown || cond.Message != "Kubelet stopped posting node status." {
		t.Errorf("Ready condition of the killed worker: reason %q message %q", cond.Reason, cond.Message)
	}
	testenv.Eventually(t, "the killed worker's pod to be not Ready", func() bool {
		o, ok := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "web-ext"})
		return ok && !service.Ready(o.(*corev1.Pod))
	})
	client, err := kubernetes.NewForConfig(&rest.Config{Host: c.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := client.CoreV1().Endpoints("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ready, notReady []string
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			ready = append(ready, a.TargetRef.Name)
		}
		for _, a := range s.NotReadyAddresses {
			notReady = append(notReady, a.TargetRef.Name)
		}
	}
	if strings.Join(ready, ",") != "web-cp" || strings.Join(notReady, ",") != "web-ext" {
		t.Errorf("Endpoints web: ready %v, not ready %v; want web-cp ready and web-ext not", ready, notReady)
	}
	if seen := ingress("once the worker is Unknown"); seen["web-cp"] != 20 {
		t.Errorf("answers by pod %v, want all 20 by web-cp", seen)
	}
}

// TestDeleteNodeDeletesItsPods: deleting a Node deletes the pods bound to
// it, as the pod garbage collector does; its kubelet, still running,
// registers the Node again, empty.
func TestDeleteNodeDeletesItsPods(t *testing.T) {
	images := fixtureImages(t, "relay")
	objs := []manifest.Object{relay("b", "b", w1), relay("b2", "b2", w1), relay("a", "a", ControlPlaneName)}
	c := startReady(t, Options{Images: os.DirFS(images), Objects: objs, Nodes: 2, Token: testToken,
		LeaseRenewInterval: 100 * time.Millisecond}, "a", "b", "b2")
	client, err := kubernetes.NewForConfig(&rest.Config{Host: c.APIURL(), BearerToken: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Nodes().Delete(context.Background(), w1, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b", "b2"} {
		testenv.Eventually(t, "pod "+name+" of the deleted node to be gone", func() bool {
			_, ok := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
			return !ok
		})
	}
	if _, ok := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "a"}); !ok {
		t.Error("pod a of the control plane was deleted too")
	}
	testenv.Eventually(t, "the worker's kubelet to register its Node again", func() bool {
		cond, ok := nodeReady(c.Store, w1)
		return ok && cond.Status == corev1.ConditionTrue
	})
	testenv.Eventually(t, "the worker to stop the deleted pods", func() bool {
		_, b := c.Workers[0].Kubelet.Pod("default", "b")
		_, b2 := c.Workers[0].Kubelet.Pod("default", "b2")
		return !b && !b2
	})
}
