package e2ek8s

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// shopManifests are the manifests of the deployed project, as a kube32
// project writes them for serve: a Rust pod (greeter) that calls a C pod
// (echo, two replicas by its annotation) through its Service, a
// NetworkPolicy that lets the greeter call echo and nothing else, a
// StaticBundle and one Ingress for all three.
var shopManifests = testmanifest.Docs(`apiVersion: v1
kind: Pod
metadata:
  name: echo
  namespace: default
  labels: {app: echo}
  annotations: {kube32.io/replicas: "2"}
spec:
  containers:
  - name: echo
    image: wasm://embedded/echo
    ports: [{containerPort: 7000, name: http}]
    env: [{name: GREETING, value: hello from echo}]
    resources: {limits: {memory: 64Ki}}
`,
	testmanifest.Service("default/echo"),
	testmanifest.Pod("default/greeter", "greeter",
		"env:\n- name: NODE_NAME\n  valueFrom: {fieldRef: {fieldPath: spec.nodeName}}",
		"resources: {limits: {memory: 64Ki}}",
		"securityContext: {capabilities: {add: [SERVICE_CALL]}}"),
	testmanifest.Service("default/greeter"),
	`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: greeter-calls-echo, namespace: default}
spec:
  podSelector: {matchLabels: {app: greeter}}
  policyTypes: [Egress]
  egress: [{to: [{podSelector: {matchLabels: {app: echo}}}]}]
`,
	testmanifest.Bundle("default/site", ""),
	testmanifest.Ingress("default/shop",
		testmanifest.Path("/greet", testmanifest.ToService("greeter")),
		testmanifest.Path("/echo", testmanifest.ToService("echo")),
		testmanifest.Path("/site", testmanifest.ToBundle("site"))))

// shopTests are the project's own tests, which pass under kube32 test.
const shopTests = `# The greeter (Rust) calls echo (C) through its Service, which the
# NetworkPolicy allows; NODE_NAME comes from the Downward API.
GET {{ingress}}/greet/ada
[Options]
retry: 30
retry-interval: 500ms
HTTP 200
[Asserts]
jsonpath "$.hello" == "ada"
jsonpath "$.node" startsWith "deploy-"
jsonpath "$.echo_status" == 200
jsonpath "$.echo.greeting" == "hello from echo"
jsonpath "$.echo.body" == "from greeter"
pod "default/greeter" ready == true
pod "default/greeter" crashed == false
pod "default/echo" restarts == 0
event "default/echo" "Started" exists

GET {{ingress}}/site/index.html
HTTP 200
[Asserts]
body contains "hello from a bundle"
`

// writeShop writes the project: kube32.yaml, the manifests, the tests, the
// pods' sources (examples/rust's greeter and examples/echo's echo) and the
// bundle.
func writeShop(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(testenv.ModuleRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml": `name: shop
manifests: [app.yaml]
pods:
  - {name: greeter, language: rust, source: pods/greeter}
  - {name: echo, language: c, source: pods/echo}
bundles:
  - {name: site, dir: site}
`,
		"app.yaml":                shopManifests,
		"tests/shop.hurl":         shopTests,
		"pods/greeter/src/lib.rs": read("examples/rust/pods/greeter/src/lib.rs"),
		"pods/echo/echo.c":        read("examples/echo/pods/echo/echo.c"),
		"site/index.html":         siteIndex,
	})
	return dir
}

// deployed reads what kube32 deploy applied for the app shop in namespace:
// each object's kind/name with its labels and spec (a Service's allocated
// addresses left out), and its resourceVersion.
func deployed(t *testing.T, dyn dynamic.Interface, namespace string) (objects map[string]any, versions map[string]string) {
	t.Helper()
	objects, versions = map[string]any{}, map[string]string{}
	for _, gvr := range []schema.GroupVersionResource{
		{Group: "apps", Version: "v1", Resource: "deployments"},
		{Version: "v1", Resource: "services"},
		{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"},
		{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"},
		{Group: "kube32.io", Version: "v1", Resource: "staticbundles"},
	} {
		list, err := dyn.Resource(gvr).Namespace(namespace).List(context.Background(), metav1.ListOptions{LabelSelector: abi.LabelDeployApp + "=shop"})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range list.Items {
			spec, _ := u.Object["spec"].(map[string]any)
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
			k := gvr.Resource + "/" + u.GetName()
			objects[k] = map[string]any{"labels": u.GetLabels(), "spec": spec}
			versions[k] = u.GetResourceVersion()
		}
	}
	return objects, versions
}

// podUIDs are the UIDs of the running pods of a Deployment of the app.
func podUIDs(t *testing.T, cs *kubernetes.Clientset, namespace, pod string) []string {
	t.Helper()
	list, err := cs.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{LabelSelector: abi.LabelDeployPod + "=" + pod})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			out = append(out, string(p.UID))
		}
	}
	slices.Sort(out)
	return out
}

// TestDeployOnKubernetes is kube32 deploy and kube32 test against a
// deployed app on the real control plane (docs/kubernetes.md, "Deploy an
// app"): refused before kube32 install; a project of a Rust and a C pod, a
// Service call between them, a NetworkPolicy and a StaticBundle deployed
// to two kube32 nodes and the kube32 Ingress, its modules in a registry;
// the project's own tests pass against it; a deploy with no change pushes
// nothing and changes no resourceVersion; an edit to one pod rolls out
// that pod alone; --dry-run -o yaml applied with plain kubectl gives the
// same objects; a pod removed from the project is pruned; --delete leaves
// nothing.
func TestDeployOnKubernetes(t *testing.T) {
	c, k, cs := startCluster(t)
	testenv.Tools(t, "rustc")
	project := writeShop(t)
	reg := testregistry.Start(t, "127.0.0.1:0")
	registry := reg.Host + "/shop"
	const ns = "shop"
	deploy := func(t *testing.T, args ...string) string {
		t.Helper()
		return k.run(t, append([]string{"deploy", project, "--kubeconfig", c.Kubeconfig, "--registry", registry, "--namespace", ns}, args...)...)
	}

	t.Run("a cluster without kube32 install is refused, saying to run it", func(t *testing.T) {
		cmd := exec.Command(k.bin, "deploy", project, "--kubeconfig", c.Kubeconfig, "--registry", registry)
		cmd.Env = k.env
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "run kube32 install") {
			t.Fatalf("kube32 deploy before install: %v\n%s\nwant a refusal saying to run kube32 install", err, out)
		}
		if list, _ := cs.AppsV1().Deployments("").List(context.Background(), metav1.ListOptions{LabelSelector: abi.LabelDeployApp}); len(list.Items) > 0 {
			t.Errorf("a refused deploy applied %d Deployments", len(list.Items))
		}
	})

	k.run(t, "install", "--kubeconfig", c.Kubeconfig)
	nodeKubeconfig := c.TokenKubeconfig(t, kubectl(t, c, "", "create", "token", "kube32-node", "-n", abi.NamespaceSystem, "--duration=2h"))
	ingressKubeconfig := c.TokenKubeconfig(t, kubectl(t, c, "", "create", "token", "kube32-ingress", "-n", abi.NamespaceSystem, "--duration=2h"))
	// The nodes pull every module from the registry: their image trees
	// are empty.
	images := t.TempDir()
	if err := os.MkdirAll(filepath.Join(images, "firmware"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct{ name, ip string }{{"deploy-a", "127.0.0.41"}, {"deploy-b", "127.0.0.42"}} {
		k.start(t, n.name, "node", "--kubeconfig", nodeKubeconfig, "--name", n.name, "--node-ip", n.ip,
			"--pod-port", strconv.Itoa(testenv.FreePort(t, n.ip)), "--kubelet-port", strconv.Itoa(testenv.FreePort(t, n.ip)),
			"--images", images, "--lease-renew-interval", "2s", "--cert-dir", filepath.Join(t.TempDir(), n.name))
		testenv.Eventually(t, "node "+n.name+" Ready", func() bool { return nodeReady(cs, n.name) == corev1.ConditionTrue })
	}
	const ingressIP = "127.0.0.43"
	ingressPort := testenv.FreePort(t, ingressIP)
	k.start(t, "kube32 ingress", "ingress", "--kubeconfig", ingressKubeconfig, "--ip", ingressIP, "--ingress-port", strconv.Itoa(ingressPort), "--images", images)
	ingressURL := fmt.Sprintf("http://%s:%d", ingressIP, ingressPort)
	testApp := func(t *testing.T) string {
		t.Helper()
		return k.run(t, "test", project, "--kubeconfig", c.Kubeconfig, "--ingress", ingressURL, "--namespace", ns)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)

	t.Run("deploy pushes, applies, rolls out and prints the Ingress's address", func(t *testing.T) {
		out := deploy(t)
		t.Log(out)
		for _, want := range []string{
			"pushed pod greeter to " + registry + "/greeter@sha256:",
			"pushed pod echo to " + registry + "/echo@sha256:",
			"pushed bundle site to " + registry + "/site@sha256:",
			"namespace/shop created",
			"networkpolicy.networking.k8s.io/greeter-calls-echo created",
			"staticbundle.kube32.io/site created",
			"deployment.apps/echo created",
			"deployment.apps/greeter created",
			"deployment.apps/echo: rolled out (2 of 2 replicas available)",
			"ingress.networking.k8s.io/shop at " + ingressIP + " serves /greet, /echo, /site",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("kube32 deploy's output lacks %q", want)
			}
		}
		d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "greeter", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		spec := d.Spec.Template.Spec
		ctr := spec.Containers[0]
		if spec.RuntimeClassName == nil || *spec.RuntimeClassName != abi.RuntimeClassName || !strings.HasPrefix(ctr.Image, registry+"/greeter@sha256:") ||
			ctr.Env[0].ValueFrom == nil || ctr.Env[0].ValueFrom.FieldRef.FieldPath != "spec.nodeName" ||
			ctr.SecurityContext == nil || !slices.Contains(ctr.SecurityContext.Capabilities.Add, "SERVICE_CALL") ||
			ctr.Resources.Limits.Memory().String() != "64Ki" || d.Spec.Template.Labels["app"] != "greeter" {
			t.Errorf("Deployment greeter's pod template: %+v", d.Spec.Template)
		}
	})

	t.Run("kube32 test --kubeconfig --ingress passes the project's own tests", func(t *testing.T) {
		out := testApp(t)
		t.Log(out)
		if !strings.Contains(out, "2 passed, 0 failed, 0 skipped") {
			t.Errorf("kube32 test against the deployed app:\n%s", out)
		}
		// The plain requests against any address, with no cluster to read:
		// a pod assert then fails, saying what it needs.
		cmd := exec.Command(k.bin, "test", project, "--url", ingressURL)
		cmd.Env = k.env
		plain, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(plain), "PASS tests/shop.hurl:19 GET /site/index.html") && !strings.Contains(string(plain), "SKIP tests/shop.hurl:19") ||
			!strings.Contains(string(plain), "run kube32 test with --kubeconfig") {
			t.Errorf("kube32 test --url: %v\n%s\nwant the pod asserts to fail, saying they need --kubeconfig", err, plain)
		}
	})

	var before map[string]any
	t.Run("a second deploy with no change pushes nothing and changes no resourceVersion", func(t *testing.T) {
		_, versions := deployed(t, dyn, ns)
		if len(versions) != 7 {
			t.Fatalf("deployed objects %v, want 7", versions)
		}
		writes := reg.Writes()
		out := deploy(t)
		if n := reg.Writes() - writes; n != 0 {
			t.Errorf("the registry received %d writes", n)
		}
		if strings.Contains(out, "pushed ") || strings.Contains(out, " created") || strings.Contains(out, " configured") {
			t.Errorf("kube32 deploy with no change:\n%s", out)
		}
		var after map[string]string
		before, after = deployed(t, dyn, ns)
		if !reflect.DeepEqual(after, versions) {
			t.Errorf("resourceVersions before %v, after %v", versions, after)
		}
	})

	t.Run("an edit to one pod rolls out that pod alone", func(t *testing.T) {
		greeterPods := podUIDs(t, cs, ns, "greeter")
		echoPods := podUIDs(t, cs, ns, "echo")
		_, versions := deployed(t, dyn, ns)
		src := filepath.Join(project, "pods", "echo", "echo.c")
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(b), `put_str("}\n");`, `put_str(",\"v\":2}\n");`, 1)
		if edited == string(b) {
			t.Fatal("echo.c no longer holds the line the edit changes")
		}
		if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		out := deploy(t)
		t.Log(out)
		if !strings.Contains(out, "pushed pod echo to") || strings.Contains(out, "pushed pod greeter") || !strings.Contains(out, "deployment.apps/echo configured") {
			t.Errorf("kube32 deploy after an edit of echo:\n%s", out)
		}
		_, after := deployed(t, dyn, ns)
		for key, rv := range versions {
			if changed := after[key] != rv; changed != (key == "deployments/echo") {
				t.Errorf("%s: resourceVersion %s → %s; want only deployments/echo changed", key, rv, after[key])
			}
		}
		if got := podUIDs(t, cs, ns, "greeter"); !slices.Equal(got, greeterPods) {
			t.Errorf("greeter's pods %v became %v: the greeter rolled out too", greeterPods, got)
		}
		if got := podUIDs(t, cs, ns, "echo"); len(got) != 2 || slices.ContainsFunc(got, func(uid string) bool { return slices.Contains(echoPods, uid) }) {
			t.Errorf("echo's pods %v became %v; want two new ones", echoPods, got)
		}
		code, body, err := get(ingressURL + "/echo/x")
		if err != nil || code != 200 || !strings.Contains(body, `"v":2`) {
			t.Errorf("GET /echo/x after the rollout: %d %q %v; want the edited echo", code, body, err)
		}
		before, _ = deployed(t, dyn, ns)
	})

	t.Run("--dry-run -o yaml applied with plain kubectl apply gives the same objects", func(t *testing.T) {
		cmd := exec.Command(k.bin, "deploy", project, "--registry", registry, "--namespace", ns, "--dry-run", "-o", "yaml")
		cmd.Env = k.env
		var stderr testenv.Buffer
		cmd.Stderr = &stderr
		yaml, err := cmd.Output()
		if err != nil {
			t.Fatalf("kube32 deploy --dry-run -o yaml: %v\n%s", err, stderr.String())
		}
		t.Log(k.run(t, "deploy", project, "--kubeconfig", c.Kubeconfig, "--delete"))
		if left, _ := deployed(t, dyn, ns); len(left) > 0 {
			t.Fatalf("after --delete: %v", left)
		}
		t.Log(kubectl(t, c, string(yaml), "apply", "-f", "-"))
		for _, d := range []string{"echo", "greeter"} {
			kubectl(t, c, "", "rollout", "status", "-n", ns, "deployment/"+d, "--timeout=90s")
		}
		got, _ := deployed(t, dyn, ns)
		if !reflect.DeepEqual(got, before) {
			a, _ := json.MarshalIndent(before, "", " ")
			b, _ := json.MarshalIndent(got, "", " ")
			t.Errorf("kube32 deploy made:\n%s\nkubectl apply of --dry-run -o yaml made:\n%s", a, b)
		}
		out := testApp(t)
		if !strings.Contains(out, "2 passed, 0 failed") {
			t.Errorf("kube32 test against what kubectl applied:\n%s", out)
		}
	})

	t.Run("a pod removed from the project is pruned", func(t *testing.T) {
		// The greeter goes, with its Service, its NetworkPolicy and its path.
		var kept []string
		for _, d := range strings.Split(shopManifests, "---\n") {
			switch {
			case strings.Contains(d, "kind: Ingress"):
				kept = append(kept, withoutLines(d, "greeter"))
			case !strings.Contains(d, "greeter"):
				kept = append(kept, d)
			}
		}
		manifests := strings.Join(kept, "---\n")
		testenv.WriteFiles(t, project, map[string]string{"app.yaml": manifests, "kube32.yaml": `name: shop
manifests: [app.yaml]
pods:
  - {name: echo, language: c, source: pods/echo}
bundles:
  - {name: site, dir: site}
`})
		out := deploy(t)
		t.Log(out)
		for _, want := range []string{"deployment.apps/greeter pruned", "service/greeter pruned", "networkpolicy.networking.k8s.io/greeter-calls-echo pruned"} {
			if !strings.Contains(out, want) {
				t.Errorf("kube32 deploy's output lacks %q", want)
			}
		}
		objs, _ := deployed(t, dyn, ns)
		var names []string
		for k := range objs {
			names = append(names, k)
		}
		slices.Sort(names)
		if want := []string{"deployments/echo", "ingresses/shop", "services/echo", "staticbundles/site"}; !slices.Equal(names, want) {
			t.Errorf("after the prune: %v, want %v", names, want)
		}
		testenv.Eventually(t, "the greeter's pods to go", func() bool { return len(allPodsIn(t, cs, ns, "greeter")) == 0 })
	})

	t.Run("--delete leaves nothing", func(t *testing.T) {
		t.Log(k.run(t, "deploy", project, "--kubeconfig", c.Kubeconfig, "--delete"))
		if objs, _ := deployed(t, dyn, ns); len(objs) > 0 {
			t.Errorf("after --delete: %v", objs)
		}
		pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil || len(pods.Items) > 0 {
			t.Errorf("after --delete: %d pods in %s (%v)", len(pods.Items), ns, err)
		}
		rs, err := cs.AppsV1().ReplicaSets(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, "the ReplicaSets to go", func() bool {
			rs, err = cs.AppsV1().ReplicaSets(ns).List(context.Background(), metav1.ListOptions{})
			return err == nil && len(rs.Items) == 0
		})
		if out := k.run(t, "deploy", project, "--kubeconfig", c.Kubeconfig, "--delete"); !strings.Contains(out, "nothing of app shop on the cluster") {
			t.Errorf("a second --delete: %s", out)
		}
	})
}

// allPodsIn lists the pods of a Deployment of the app, whatever their phase.
func allPodsIn(t *testing.T, cs *kubernetes.Clientset, namespace, pod string) []corev1.Pod {
	t.Helper()
	list, err := cs.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{LabelSelector: abi.LabelDeployPod + "=" + pod})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// withoutLines is doc without its lines that contain s.
func withoutLines(doc, s string) string {
	var kept []string
	for _, line := range strings.SplitAfter(doc, "\n") {
		if !strings.Contains(line, s) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}
