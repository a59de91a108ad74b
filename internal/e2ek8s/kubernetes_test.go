// Package e2ek8s runs kube32 on a real Kubernetes control plane
// (internal/testkit/testk8s), as docs/kubernetes.md walks a user through it: the
// kube32 binary's install, node, ingress and push commands, driven and
// checked with real kubectl and client-go.
package e2ek8s

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testk8s"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// kube32 is a built kube32 binary and what a test runs it with.
type kube32 struct {
	bin, kubeconfig string
	env             []string
}

// startCluster starts the real control plane and builds kube32 for it;
// the cluster's nodes, pods and events are logged if the test fails.
func startCluster(t *testing.T) (*testk8s.Cluster, *kube32, *kubernetes.Clientset) {
	t.Helper()
	testenv.Tools(t, "clang", "kubectl", "go")
	c := testk8s.Start(t)
	k := buildKube32(t, c)
	cs := clientset(t, c)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := kubectlErr(c, "", "get", "nodes,pods,events", "-o", "wide")
			t.Logf("--- the cluster ---\n%s", out)
		}
	})
	return c, k, cs
}

// buildKube32 builds the kube32 binary of this checkout.
func buildKube32(t *testing.T, c *testk8s.Cluster) *kube32 {
	t.Helper()
	goTool := testenv.Tool(t, "go")
	bin := filepath.Join(t.TempDir(), "kube32")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cli/kube32")
	cmd.Dir = testenv.ModuleRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	return &kube32{bin: bin, kubeconfig: c.Kubeconfig, env: append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, "cache"))}
}

// run runs kube32 with args to the end, failing t when it fails.
func (k *kube32) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(k.bin, args...)
	cmd.Env = k.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kube32 %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// process is a long-running kube32 command.
type process struct {
	name   string
	cmd    *exec.Cmd
	out    *testenv.Buffer
	exited chan struct{}
}

// start runs kube32 with args in the background until the test ends.
func (k *kube32) start(t *testing.T, name string, args ...string) *process {
	t.Helper()
	p := &process{name: name, cmd: exec.Command(k.bin, args...), out: &testenv.Buffer{}, exited: make(chan struct{})}
	p.cmd.Env = k.env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	testk8s.DieWithTest(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("--- %s ---\n%s", name, p.out.String())
		}
	})
	return p
}

// kubectl runs the real kubectl against the cluster.
func kubectl(t *testing.T, c *testk8s.Cluster, stdin string, args ...string) string {
	t.Helper()
	out, err := kubectlErr(c, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func kubectlErr(c *testk8s.Cluster, stdin string, args ...string) (string, error) {
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// siteIndex is the index.html of StaticBundle site in imagesDir.
const siteIndex = "<!doctype html><title>site</title>hello from a bundle\n"

// imagesDir is an image tree holding the probe test pod as
// wasm://embedded/probe and StaticBundle site.
func imagesDir(t *testing.T) (dir string, probe []byte) {
	t.Helper()
	probe = testpods.Fixture(t, "probe", 65536)
	dir = t.TempDir()
	wasm := filepath.Join(dir, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasm, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wasm, "probe.wasm"), probe, 0o644); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "firmware", "images", "web", "site")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte(siteIndex), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, probe
}

func clientset(t *testing.T, c *testk8s.Cluster) *kubernetes.Clientset {
	t.Helper()
	return clientFor(t, c.Kubeconfig)
}

// clientFor is a clientset of kubeconfig.
func clientFor(t *testing.T, kubeconfig string) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// nodeReady is the status of a Node's Ready condition ("" when it has none).
func nodeReady(cs *kubernetes.Clientset, name string) corev1.ConditionStatus {
	n, err := cs.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// podsOf lists the running pods labelled app=app.
func podsOf(t *testing.T, cs *kubernetes.Clientset, app string) []corev1.Pod {
	t.Helper()
	list, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// viaPodPort sends GET path to pod (namespace default) through its node's
// pod port, as another node's call would.
func viaPodPort(t *testing.T, cs *kubernetes.Clientset, pod corev1.Pod, path string) string {
	t.Helper()
	n, err := cs.CoreV1().Nodes().Get(context.Background(), pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+nodeAddr(n)+path, nil)
	req.Header.Set(abi.HeaderPod, "default/"+pod.Name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// nodeAddr is a kube32 Node's pod port, as its Node says it.
func nodeAddr(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return net.JoinHostPort(a.Address, n.Annotations[abi.AnnotationPodPort])
		}
	}
	return ""
}

// get answers GET url's status and body.
func get(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// deployment is a Deployment of the probe pod with its Service, both
// named name, spread over the kube32 nodes.
func deployment(name, image string, replicas int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s}
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      runtimeClassName: kube32
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: %[1]s}}}
      containers:
      - name: main
        image: %[2]s
        ports: [{containerPort: 80}]
        env:
        - {name: GREETING, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        securityContext: {capabilities: {add: [SERVICE_CALL]}}
        resources: {limits: {memory: 64Ki}}   # a memory request the scheduler must fit
---
apiVersion: v1
kind: Service
metadata: {name: %[1]s}
spec:
  selector: {app: %[1]s}
  ports: [{port: 80, targetPort: 80}]
`, name, image, replicas)
}

// waitRollout waits until kubectl says the Deployment rolled out.
func waitRollout(t *testing.T, c *testk8s.Cluster, name string) {
	t.Helper()
	kubectl(t, c, "", "rollout", "status", "deployment/"+name, "--timeout=90s")
}

// TestKube32OnKubernetes is docs/kubernetes.md on a real control plane:
// install, two kube32 nodes, a Deployment across them, kubectl logs,
// port-forward and top, a call between Services allowed and then denied by
// a NetworkPolicy, the kube32 Ingress, a rolling update to an image pushed
// with kube32 push, and a node killed turning NotReady.
func TestKube32OnKubernetes(t *testing.T) {
	c, k, cs := startCluster(t)
	images, probe := imagesDir(t)

	t.Log(k.run(t, "install", "--kubeconfig", c.Kubeconfig))
	// The nodes ask for their own identity as the ServiceAccount install
	// made for it, and the Ingress acts as its own, each with the least
	// RBAC install gives it.
	nodeKubeconfig := c.TokenKubeconfig(t, kubectl(t, c, "", "create", "token", "kube32-node", "-n", abi.NamespaceSystem, "--duration=2h"))
	ingressKubeconfig := c.TokenKubeconfig(t, kubectl(t, c, "", "create", "token", "kube32-ingress", "-n", abi.NamespaceSystem, "--duration=2h"))

	// Two kube32 nodes, each in a process of its own. kube-apiserver
	// reaches kube32-a at its InternalIP (its name resolves nowhere), and
	// kube32-b at its Hostname address, localhost, given as a kubelet's
	// --hostname-override.
	type node struct {
		name, ip string
		args     []string
		certDir  string
		proc     *process
	}
	nodes := []*node{
		{name: "kube32-a", ip: "127.0.0.21"},
		{name: "kube32-b", ip: "127.0.0.1", args: []string{"--hostname-override", "localhost"}},
	}
	start := func(n *node) {
		n.proc = k.start(t, n.name, append([]string{"node", "--kubeconfig", nodeKubeconfig, "--name", n.name, "--node-ip", n.ip,
			"--pod-port", strconv.Itoa(testenv.FreePort(t, n.ip)), "--kubelet-port", strconv.Itoa(testenv.FreePort(t, n.ip)),
			"--images", images, "--lease-renew-interval", "2s", "--cert-dir", n.certDir}, n.args...)...)
	}
	certDirs := t.TempDir()
	for _, n := range nodes {
		n.certDir = filepath.Join(certDirs, n.name)
		start(n)
	}
	// metrics-server scrapes the nodes' kubelet API for kubectl top, as
	// on any cluster.
	testk8s.StartMetricsServer(t, c)
	for _, n := range nodes {
		testenv.Eventually(t, "node "+n.name+" Ready", func() bool { return nodeReady(cs, n.name) == corev1.ConditionTrue })
	}
	nodeA, err := cs.CoreV1().Nodes().Get(context.Background(), "kube32-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(nodeA.Spec.Taints, func(t corev1.Taint) bool { return t.Key == abi.TaintWasm }) || nodeA.Labels["kubernetes.io/arch"] != "wasm32" {
		t.Errorf("node kube32-a: taints %v, labels %v; want the %s taint and arch wasm32", nodeA.Spec.Taints, nodeA.Labels, abi.TaintWasm)
	}
	// Addresses that lead to the node, and no name that does not resolve.
	for _, n := range nodes {
		got, err := cs.CoreV1().Nodes().Get(context.Background(), n.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.ip}}
		if len(n.args) > 0 {
			want = append(want, corev1.NodeAddress{Type: corev1.NodeHostName, Address: "localhost"})
		}
		if !slices.Equal(got.Status.Addresses, want) {
			t.Errorf("node %s addresses %v, want %v", n.name, got.Status.Addresses, want)
		}
	}

	t.Run("a Deployment of 3 kube32 pods rolls out across both nodes", func(t *testing.T) {
		kubectl(t, c, deployment("web", "wasm://embedded/probe", 3)+"---\n"+deployment("backend", "wasm://embedded/probe", 1), "apply", "-f", "-")
		waitRollout(t, c, "web")
		waitRollout(t, c, "backend")
		on := map[string]int{}
		for _, p := range podsOf(t, cs, "web") {
			on[p.Spec.NodeName]++
			if got := viaPodPort(t, cs, p, "/hello"); got != "hello\n" {
				t.Errorf("pod %s answered %q on its node's pod port", p.Name, got)
			}
		}
		if len(on) != 2 {
			t.Errorf("pods by node: %v; want both kube32 nodes", on)
		}
	})

	t.Run("kubectl logs and port-forward reach a pod on each node through the kubelet API", func(t *testing.T) {
		// kube-apiserver runs with its default address types: Hostname
		// first, then InternalIP (docs/kubernetes.md).
		for _, n := range nodes {
			p, ok := podOn(podsOf(t, cs, "web"), n.name)
			if !ok {
				t.Fatalf("no web pod runs on %s", n.name)
			}
			viaPodPort(t, cs, p, "/log")
			testenv.EventuallyNil(t, "kubectl logs to show the lines of "+p.Name+" on "+n.name, func() error {
				out, err := kubectlErr(c, "", "logs", p.Name)
				if err != nil || !strings.Contains(out, "hello from k32_log") || !strings.Contains(out, "to stdout") {
					return fmt.Errorf("kubectl logs %s: %v\n%s", p.Name, err, out)
				}
				return nil
			})

			local := testenv.FreePort(t, "127.0.0.1")
			fwd := exec.Command("kubectl", "--kubeconfig", c.Kubeconfig, "port-forward", "pod/"+p.Name, fmt.Sprintf("%d:80", local))
			out := &testenv.Buffer{}
			fwd.Stdout, fwd.Stderr = out, out
			if err := fwd.Start(); err != nil {
				t.Fatal(err)
			}
			testenv.EventuallyNil(t, "GET /hello through kubectl port-forward to "+p.Name+" on "+n.name, func() error {
				code, body, err := get(fmt.Sprintf("http://127.0.0.1:%d/hello", local))
				if err != nil || code != http.StatusOK || body != "hello\n" {
					return fmt.Errorf("%d %q %v; kubectl port-forward: %s", code, body, err, out.String())
				}
				return nil
			})
			fwd.Process.Kill()
			fwd.Wait()
		}
	})

	t.Run("each node acts as itself, held to its own Node, Lease and pods", func(t *testing.T) {
		a, b := nodes[0], nodes[1]
		pods := podsOf(t, cs, "web")
		podA, okA := podOn(pods, a.name)
		podB, okB := podOn(pods, b.name)
		if !okA || !okB {
			t.Fatalf("web pods by node: %v; want one on each", pods)
		}
		// Real kubectl with node a's kept certificate (--cert-dir).
		certFile := filepath.Join(a.certDir, "node-client.pem")
		asA := c.CertKubeconfig(t, certFile, certFile)
		as := func(kubeconfig string, args ...string) (string, error) {
			out, err := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
			return strings.TrimSpace(string(out)), err
		}
		if who, err := as(asA, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); err != nil || who != "system:node:kube32-a" {
			t.Errorf("kubectl auth whoami with kube32-a's certificate: %q %v", who, err)
		}
		// What the Node authorizer decides, which kubectl auth can-i shows.
		for _, tc := range []struct {
			args    string
			allowed bool
		}{
			{"update leases.coordination.k8s.io/kube32-a -n kube-node-lease", true},
			{"update leases.coordination.k8s.io/kube32-b -n kube-node-lease", false},
			{"get nodes/kube32-b", true}, // a call to a pod on kube32-b reads its address (kube32-node-reader)
			{"list nodes", false},
			{"delete nodes/kube32-b", false},
			{"get secrets -n default", false},
			{"list configmaps -A", false},
			{"update ingresses.networking.k8s.io --subresource=status -n default", false},
		} {
			// --quiet: the answer is the exit status alone.
			out, err := as(asA, append([]string{"auth", "can-i", "--quiet"}, strings.Fields(tc.args)...)...)
			if got := err == nil; got != tc.allowed {
				t.Errorf("kube32-a may %s: %v (%v %s), want %v", tc.args, got, err, out, tc.allowed)
			}
		}
		// What NodeRestriction admission decides: the Node authorizer lets
		// a node patch Nodes and delete pods, and admission holds it to its
		// own (as any kubelet). Real requests, run to the end but not
		// stored (--dry-run=server runs admission).
		for _, tc := range []struct {
			what   string
			args   []string
			denial string // "" for allowed
		}{
			{"annotate its own Node", []string{"annotate", "node", a.name, "kube32.io/probe=1"}, ""},
			{"remove another node's taints", []string{"patch", "node", b.name, "--type=merge", "-p", `{"spec":{"taints":null}}`}, `is not allowed to modify node "kube32-b"`},
			{"remove its own taints", []string{"patch", "node", a.name, "--type=merge", "-p", `{"spec":{"taints":null}}`}, "is not allowed to modify taints"},
			{"delete its own pod", []string{"delete", "pod", podA.Name}, ""},
			{"delete another node's pod", []string{"delete", "pod", podB.Name}, "can only delete pods with spec.nodeName set to itself"},
		} {
			out, err := as(asA, append(tc.args, "--dry-run=server")...)
			switch {
			case tc.denial == "" && err != nil:
				t.Errorf("kube32-a may %s: %v\n%s", tc.what, err, out)
			case tc.denial != "" && (err == nil || !strings.Contains(out, tc.denial)):
				t.Errorf("kube32-a may %s: %v %q; want Forbidden: %s", tc.what, err, out, tc.denial)
			}
		}
		// Status writes, with client-go (kubectl patch --subresource=status
		// reads the status first, which a node may not): its own pod's
		// status, and not another node's, nor another Node's status.
		nodeA := clientFor(t, asA)
		merge := func(status string) []byte { return []byte(`{"status":` + status + `}`) }
		dryRun := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}
		ctx := context.Background()
		for _, tc := range []struct {
			what   string
			patch  func() error
			denial string
		}{
			{"write its own pod's status", func() error {
				_, err := nodeA.CoreV1().Pods("default").Patch(ctx, podA.Name, types.MergePatchType, merge(`{"message":"x"}`), dryRun, "status")
				return err
			}, ""},
			{"write another node's pod status", func() error {
				_, err := nodeA.CoreV1().Pods("default").Patch(ctx, podB.Name, types.MergePatchType, merge(`{"message":"x"}`), dryRun, "status")
				return err
			}, "can only update pod status for pods with spec.nodeName set to itself"},
			{"write its own Node's status", func() error {
				_, err := nodeA.CoreV1().Nodes().Patch(ctx, a.name, types.MergePatchType, merge(`{"phase":"Running"}`), dryRun, "status")
				return err
			}, ""},
			{"write another Node's status", func() error {
				_, err := nodeA.CoreV1().Nodes().Patch(ctx, b.name, types.MergePatchType, merge(`{"phase":"Running"}`), dryRun, "status")
				return err
			}, `is not allowed to modify node "kube32-b"`},
		} {
			err := tc.patch()
			switch {
			case tc.denial == "" && err != nil:
				t.Errorf("kube32-a may %s: %v", tc.what, err)
			case tc.denial != "" && (!apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.denial)):
				t.Errorf("kube32-a may %s: %v; want Forbidden: %s", tc.what, err, tc.denial)
			}
		}
		// kube32-node, the identity the nodes asked with, may do nothing
		// else.
		if out, err := as(nodeKubeconfig, "get", "nodes"); err == nil || !strings.Contains(out, "Forbidden") {
			t.Errorf("kube32-node lists Nodes: %v %q; want Forbidden", err, out)
		}
		// Its Lease, renewed by the node as itself.
		lease := func() string {
			out, err := as(c.Kubeconfig, "get", "lease", a.name, "-n", "kube-node-lease", "-o", "jsonpath={.spec.holderIdentity} {.spec.renewTime}")
			if err != nil {
				t.Fatal(err, out)
			}
			return out
		}
		first := lease()
		if !strings.HasPrefix(first, a.name+" ") {
			t.Errorf("Lease %s: %q, want held by %s", a.name, first, a.name)
		}
		testenv.Eventually(t, "kube32-a to renew its Lease", func() bool { return lease() != first })
	})

	t.Run("kubectl top shows a pod through metrics-server", func(t *testing.T) {
		web := podsOf(t, cs, "web")
		if len(web) == 0 {
			t.Fatal("no web pod runs")
		}
		testenv.EventuallyNil(t, "kubectl top pod", func() error {
			out, err := kubectlErr(c, "", "top", "pod", web[0].Name)
			if err != nil || !strings.Contains(out, web[0].Name) || (!strings.Contains(out, "Ki") && !strings.Contains(out, "Mi")) {
				return fmt.Errorf("kubectl top pod %s: %v\n%s", web[0].Name, err, out)
			}
			return nil
		})
	})

	t.Run("a call to another Service is allowed, then denied by a NetworkPolicy", func(t *testing.T) {
		pods := podsOf(t, cs, "web")
		if len(pods) == 0 {
			t.Fatal("no web pod runs")
		}
		web := pods[0]
		// kube32 enforces egress rules, as the boards do
		// (docs/networkpolicy.md). A node reads the pods behind a Service through a cache of
		// abi.APICacheTTL: the backend may take that long to be seen ready.
		var out string
		testenv.EventuallyNil(t, "the call to Service backend to be answered", func() error {
			if out = viaPodPort(t, cs, web, "/call"); !strings.Contains(out, "status=404\n") {
				return errors.New(out)
			}
			return nil
		})
		testpods.Contains(t, out, "body=/ping: no such route")
		kubectl(t, c, `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-closed}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
`, "apply", "-f", "-")
		denied := fmt.Sprintf("call=%d\n", abi.ErrPerm)
		testenv.EventuallyNil(t, "the call to be denied", func() error {
			if out := viaPodPort(t, cs, web, "/call"); !strings.Contains(out, denied) {
				return errors.New(out)
			}
			return nil
		})
		kubectl(t, c, "", "delete", "networkpolicy", "web-closed")
	})

	t.Run("kubectl drain evicts a node's pods, which the node stops and deletes", func(t *testing.T) {
		// Eviction marks the pods deleted; drain returns once they are
		// gone, which only their node does, as itself.
		kubectl(t, c, "", "drain", nodes[0].name, "--pod-selector=app=web", "--timeout=90s")
		if p, ok := podOn(podsOf(t, cs, "web"), nodes[0].name); ok {
			t.Errorf("pod %s still runs on drained node %s", p.Name, nodes[0].name)
		}
		kubectl(t, c, "", "uncordon", nodes[0].name)
		waitRollout(t, c, "web")
	})

	t.Run("the kube32 Ingress serves the Deployment and a StaticBundle", func(t *testing.T) {
		const ip = "127.0.0.23"
		port := testenv.FreePort(t, ip)
		k.start(t, "kube32 ingress", "ingress", "--kubeconfig", ingressKubeconfig, "--ip", ip, "--ingress-port", strconv.Itoa(port), "--images", images)
		kubectl(t, c, `apiVersion: kube32.io/v1
kind: StaticBundle
metadata: {name: site}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: kube32
  rules:
  - http:
      paths:
      - {path: /static, pathType: Prefix, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: site}}}
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`, "apply", "-f", "-")
		base := fmt.Sprintf("http://%s:%d", ip, port)
		for path, want := range map[string]string{"/hello": "hello\n", "/static/index.html": siteIndex} {
			testenv.EventuallyNil(t, "GET "+path+" through the kube32 Ingress", func() error {
				code, body, err := get(base + path)
				if err != nil || code != http.StatusOK || body != want {
					return fmt.Errorf("GET %s: %d %q %v", path, code, body, err)
				}
				return nil
			})
		}
		testenv.EventuallyNil(t, "the Ingress's status.loadBalancer", func() error {
			ing, err := cs.NetworkingV1().Ingresses("default").Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if lb := ing.Status.LoadBalancer.Ingress; len(lb) != 1 || lb[0].IP != ip {
				return fmt.Errorf("status.loadBalancer.ingress %+v, want [%s]", lb, ip)
			}
			return nil
		})
	})

	t.Run("a rolling update to an image pushed with kube32 push", func(t *testing.T) {
		reg := testregistry.Start(t, "127.0.0.1:0")
		ref := reg.Host + "/apps/probe:v2"
		module := filepath.Join(t.TempDir(), "probe.wasm")
		if err := os.WriteFile(module, probe, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log(k.run(t, "push", module, ref))
		raw, m := testregistry.Manifest(t, ref)
		if len(m.Layers) != 1 || m.Layers[0].MediaType != "application/wasm" || m.Layers[0].Digest != digest.FromBytes(probe) {
			t.Fatalf("crane manifest %s: want one application/wasm layer of the module", raw)
		}

		kubectl(t, c, "", "set", "image", "deployment/web", "main="+ref)
		waitRollout(t, c, "web")
		pods := podsOf(t, cs, "web")
		if len(pods) != 3 {
			t.Fatalf("%d web pods run after the update, want 3", len(pods))
		}
		for _, p := range pods {
			st := p.Status.ContainerStatuses
			if len(st) != 1 || st[0].Image != ref || !strings.HasSuffix(st[0].ImageID, "@"+digest.FromBytes(raw).String()) {
				t.Errorf("pod %s: container status %+v; want image %s pulled at the pushed digest", p.Name, st, ref)
			}
			if got := viaPodPort(t, cs, p, "/hello"); got != "hello\n" {
				t.Errorf("pod %s answered %q", p.Name, got)
			}
		}
	})

	t.Run("a pod of another runtime class bound to a kube32 node is refused", func(t *testing.T) {
		kubectl(t, c, `apiVersion: v1
kind: Pod
metadata: {name: container-pod}
spec:
  nodeName: kube32-a
  containers: [{name: main, image: wasm://embedded/probe}]
`, "apply", "-f", "-")
		testenv.EventuallyNil(t, "the pod to be refused", func() error {
			p, err := cs.CoreV1().Pods("default").Get(context.Background(), "container-pod", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if p.Status.Phase != corev1.PodFailed || p.Status.Reason != "UnsupportedRuntimeClass" {
				return fmt.Errorf("phase %s, reason %q: %s", p.Status.Phase, p.Status.Reason, p.Status.Message)
			}
			return nil
		})
	})

	t.Run("a node killed with SIGKILL turns NotReady", func(t *testing.T) {
		b := nodes[1]
		b.proc.cmd.Process.Kill()
		<-b.proc.exited
		testenv.Eventually(t, "node "+b.name+" NotReady", func() bool { return nodeReady(cs, b.name) == corev1.ConditionUnknown })
	})

	t.Run("a node started again takes its kept certificate back", func(t *testing.T) {
		b := nodes[1]
		before := kubectl(t, c, "", "get", "csr", "-o", "name")
		start(b)
		testenv.Eventually(t, "node "+b.name+" Ready again", func() bool { return nodeReady(cs, b.name) == corev1.ConditionTrue })
		if after := kubectl(t, c, "", "get", "csr", "-o", "name"); after != before {
			t.Errorf("CSRs before the restart:\n%s\nafter:\n%s\nwant no new one", before, after)
		}
	})
}

// podOn is a pod of pods bound to node.
func podOn(pods []corev1.Pod, node string) (corev1.Pod, bool) {
	for _, p := range pods {
		if p.Spec.NodeName == node {
			return p, true
		}
	}
	return corev1.Pod{}, false
}
