package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

const testToken = "nodes-test-token"

// fixtureImages writes an image tree holding the shared C test pod name
// (see internal/testkit/testpods/c) as name.wasm and returns its folder.
func fixtureImages(t testing.TB, name string) string {
	t.Helper()
	wasm := testpods.Fixture(t, name, 65536)
	dir := t.TempDir()
	wasmDir := filepath.Join(dir, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wasmDir, name+".wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// relay is a relay pod labelled app=<app> with WHO=<name>, pinned to node.
func relay(name, app, node string) manifest.Object {
	return manifest.Object{Obj: pinnedPod(name, app, node, "relay", corev1.Container{
		Env: []corev1.EnvVar{{Name: "WHO", Value: name}}, SecurityContext: capabilities("SERVICE_CALL")})}
}

func svc(name string) manifest.Object {
	return manifest.Object{Obj: &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}}
}

// denyEgress is a NetworkPolicy that denies every call of the pods
// labelled app=<app>: it selects them for egress and allows nothing.
func denyEgress(name, app string) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
		},
	}
}

func webIngress() manifest.Object {
	prefix := networkingv1.PathTypePrefix
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web",
					Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
	}}
}

const (
	w1 = "kube32-worker-1"
	w2 = "kube32-worker-2"
)

// startNodes runs a 3-node cluster: a and a2 on the control plane, b and
// b2 on worker 1, c on worker 2, web-1 and web-2 behind the Ingress on
// the two workers.
func startNodes(t *testing.T, images string) *Cluster {
	t.Helper()
	objs := []manifest.Object{
		relay("a", "a", ControlPlaneName), relay("a2", "a2", ControlPlaneName),
		relay("b", "b", w1), relay("b2", "b2", w1), relay("c", "c", w2),
		relay("web-1", "web", w1), relay("web-2", "web", w2),
		svc("a"), svc("a2"), svc("b"), svc("b2"), svc("c"), svc("web"), webIngress(),
	}
	c := startReady(t, Options{Images: os.DirFS(images), Objects: objs, Nodes: 3, Token: testToken,
		HandlerTimeout: 5 * time.Second}, "a", "a2", "b", "b2", "c", "web-1", "web-2")
	return c
}

// startReady starts a cluster with opts, closed when the test ends, and
// waits until it is ready and the pods named are Ready.
func startReady(t *testing.T, opts Options, pods ...string) *Cluster {
	t.Helper()
	c, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	waitReadyPods(t, c, pods...)
	return c
}

func waitReadyPods(t testing.TB, c *Cluster, names ...string) {
	t.Helper()
	for _, name := range names {
		testenv.Eventually(t, "pod "+name+" to be ready", func() bool {
			o, ok := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
			return ok && service.Ready(o.(*corev1.Pod))
		})
	}
}

// relayVia posts commands to pod target at a pod server.
func relayVia(t *testing.T, podURL, target, commands string) string {
	t.Helper()
	out, err := tryRelay(podURL, target, commands)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryRelay is relayVia for goroutines other than the test's.
func tryRelay(podURL, target, commands string) (string, error) {
	return testpods.Relay(podURL, "default/"+target, commands)
}

func TestThreeNodes(t *testing.T) {
	c := startNodes(t, fixtureImages(t, "relay"))
	if len(c.Workers) != 2 {
		t.Fatalf("%d workers, want 2", len(c.Workers))
	}
	pods := map[string]string{"a": c.PodURL(), "b": c.Workers[0].PodURL(), "c": c.Workers[1].PodURL()}
	for i, w := range c.Workers {
		if want := "127.0.0." + strconv.Itoa(i+2) + ":"; !strings.HasPrefix(strings.TrimPrefix(w.PodURL(), "http://"), want) {
			t.Errorf("worker %d pod server %s, want on %s", i+1, w.PodURL(), want)
		}
		_, port, _ := strings.Cut(strings.TrimPrefix(w.PodURL(), "http://"), ":")
		if !strings.HasSuffix(c.PodURL(), ":"+port) {
			t.Errorf("worker pod port %s differs from the control plane's %s", port, c.PodURL())
		}
	}

	t.Run("same-node calls", func(t *testing.T) {
		testpods.Contains(t, relayVia(t, pods["a"], "a", "call GET http://a2/ 0 4096\n"), "call rc=200 ", "who=a2\n")
		testpods.Contains(t, relayVia(t, pods["b"], "b", "call GET http://b2.default.svc/ 0 4096\n"), "call rc=200 ", "who=b2\n")
	})

	t.Run("cross-node calls, headers filtered both ways", func(t *testing.T) {
		for _, hop := range [][3]string{{"a", "b", pods["a"]}, {"b", "c", pods["b"]}, {"c", "a", pods["c"]}, {"b", "a", pods["b"]}} {
			out := relayVia(t, hop[2], hop[0], "call POST http://"+hop[1]+"/ 0 4096\n")
			_, callee, _ := strings.Cut(out, "call rc=")
			testpods.Contains(t, callee, "200 ", "x-relay="+hop[1]+"\n", "who="+hop[1]+"\n", "chain=default/"+hop[0]+"\n",
				"Cookie: c=1", "X-Request-Id: r1", "Content-Type: text/plain")
			testpods.Lacks(t, callee, "Authorization", "X-Secret", "forged/pod", "User-Agent")
		}
	})

	t.Run("chain loop across nodes", func(t *testing.T) {
		out := relayVia(t, pods["a"], "a", "call GET http://b/ 0 4096\ncall GET http://c/ 0 4096\ncall GET http://a/ 0 4096\n")
		testpods.Contains(t, out, "who=c\nchain=default/a,default/b\n", testpods.CallRC(abi.ErrLoop))
	})

	t.Run("TOOBIG across nodes keeps the status", func(t *testing.T) {
		testpods.Contains(t, relayVia(t, pods["a"], "a", "call GET http://c/ 0 10\n"), testpods.CallRC(abi.ErrTooBig)+"status=200 len=10 x-relay=c\nwho=c\nchai")
	})

	t.Run("crossing calls across nodes end", func(t *testing.T) {
		testpods.CrossingCalls(t, "a", "b", func(from, commands string) (string, error) {
			return tryRelay(pods[from], from, commands)
		})
	})

	t.Run("logs of a worker's pod", func(t *testing.T) {
		if r := testhttp.Get(t, c.APIURL()+"/api/v1/namespaces/default/pods/b/log", "Authorization: Bearer "+testToken); r.Status != 200 {
			t.Errorf("logs of pod b on %s: %s", w1, r)
		}
	})

	// Issue 19, item 5: docs/nodes.md promises Events from every node's
	// kubelet, written over the API as a worker writes everything.
	t.Run("pods on workers record Events", func(t *testing.T) {
		testenv.Eventually(t, "a Started Event of pod b from "+w1, func() bool {
			for _, o := range c.Store.List("Event", "default") {
				e := o.(*corev1.Event)
				if e.InvolvedObject.Name == "b" && e.Reason == "Started" && e.Source.Host == w1 &&
					e.Message == "Started container main" && e.Count >= 1 {
					return true
				}
			}
			return false
		})
	})

	t.Run("TIMEOUT across nodes", func(t *testing.T) {
		testpods.Contains(t, relayVia(t, pods["a"], "a", "call GET http://c/ 100 4096\nspin 400\n"), testpods.CallRC(abi.ErrTimeout))
	})

	t.Run("ingress round-robin across workers", func(t *testing.T) {
		seen := map[string]int{}
		for i := 0; i < 6; i++ {
			r := testhttp.Get(t, c.IngressURL()+"/x", "X-Kube32-Call-Chain: default/web-1,default/web-2")
			if r.Status != 200 {
				t.Fatalf("ingress: %s", r)
			}
			seen[r.Header.Get("X-Relay")]++
			testpods.Contains(t, r.Body, "chain=\n", "path=/x\n")
		}
		if seen["web-1"] != 3 || seen["web-2"] != 3 {
			t.Errorf("answers by pod %v, want 3 each", seen)
		}
	})
}

// Pods without a nodeSelector spread over the Ready nodes, the workers'
// as well as the control plane.
func TestPodsSpreadOverNodes(t *testing.T) {
	images := fixtureImages(t, "relay")
	var objs []manifest.Object
	for _, name := range []string{"s1", "s2", "s3"} {
		o := relay(name, "s", "")
		o.Obj.(*corev1.Pod).Spec.NodeSelector = nil
		objs = append(objs, o)
	}
	c := startReady(t, Options{Images: os.DirFS(images), Objects: objs, Nodes: 3})
	nodes := map[string]bool{}
	for _, o := range c.Store.List("Pod", "default") {
		p := o.(*corev1.Pod)
		nodes[p.Spec.NodeName] = true
		if p.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s on %s: %s", p.Name, p.Spec.NodeName, p.Status.Phase)
		}
	}
	if len(nodes) != 3 {
		t.Errorf("pods on nodes %v, want one on each of the 3", nodes)
	}
}
