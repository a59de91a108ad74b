package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testk8s"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testserve"
	"github.com/kube32/kube32/templates/demo"
)

// TestInstallAndIngressOnKubernetes runs `kube32 install` and `kube32 ingress`
// against a real control plane (one for all the subtests, which follow
// one another: each builds on the cluster the previous left), with real
// kubectl (docs/kubernetes-install.md).
func TestInstallAndIngressOnKubernetes(t *testing.T) {
	kubectlPath := testenv.Tool(t, "kubectl")
	c := testk8s.Start(t)
	k := k8sKubectl{t: t, path: kubectlPath, kubeconfig: c.Kubeconfig}

	t.Run("ingress answers 503 until it has listed every kind", func(t *testing.T) {
		// Before install the StaticBundle kind does not exist: the mirror
		// cannot list it, so the controller cannot know every route.
		ing := testserve.Ingress(t, "--kubeconfig", c.Kubeconfig)
		resp := ingressGet(t, ing.URL()+"/", "")
		if resp.status != http.StatusServiceUnavailable || ing.Synced() {
			t.Errorf("GET / before the CRD exists: %d %q (synced %v), want 503", resp.status, resp.body, ing.Synced())
		}
	})

	var objects []*unstructured.Unstructured
	t.Run("install creates every object, and a second run changes nothing", func(t *testing.T) {
		k := k.on(t)
		objs := installDryRunObjects(t)
		code, out := testserve.Run(t, "install", "--kubeconfig", c.Kubeconfig)
		if code != 0 {
			t.Fatalf("install: exit %d\n%s", code, out)
		}
		wantInstallLines(t, out, host.KubernetesInstallNames(), "created")
		before := k.resourceVersions(objs)
		code, out = testserve.Run(t, "install", "--kubeconfig", c.Kubeconfig)
		if code != 0 {
			t.Fatalf("install again: exit %d\n%s", code, out)
		}
		wantInstallLines(t, out, host.KubernetesInstallNames(), "unchanged")
		if after := k.resourceVersions(objs); !slices.Equal(before, after) {
			t.Errorf("resourceVersions changed by a second install:\nbefore %v\nafter  %v", before, after)
		}
		objects = objs
	})
	if len(objects) == 0 {
		t.Fatal("install failed; the rest needs it")
	}

	t.Run("install takes back a field someone else changed, and says configured", func(t *testing.T) {
		k := k.on(t)
		role := "clusterrole.rbac.authorization.k8s.io/kube32-ingress"
		k.run("", "patch", role, "--type=json", "-p", `[{"op":"remove","path":"/rules/0"}]`)
		code, out := testserve.Run(t, "install", "--kubeconfig", c.Kubeconfig)
		if code != 0 {
			t.Fatalf("install: exit %d\n%s", code, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			want := " unchanged"
			if strings.HasPrefix(line, role+" ") {
				want = " configured"
			}
			if !strings.HasSuffix(line, want) {
				t.Errorf("install printed %q, want it to end with %q", line, want)
			}
		}
		if got := k.run("", "get", role, "-o", "jsonpath={.rules[0].resources}"); got != `["ingresses","ingressclasses"]` {
			t.Errorf("%s rules[0].resources %s after install, want the ingresses rule back", role, got)
		}
	})

	t.Run("install deletes the Lease Role an earlier install gave kube32-node, and nothing of someone else's", func(t *testing.T) {
		k := k.on(t)
		// An earlier install's Role (field manager kube32-install), and a
		// RoleBinding of the same name that someone else made.
		k.run(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: kube32-node, namespace: kube-node-lease}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}
`, "apply", "--server-side", "--field-manager", "kube32-install", "-f", "-")
		k.run("", "create", "rolebinding", "kube32-node", "-n", "kube-node-lease", "--role=kube32-node", "--serviceaccount=kube32-system:kube32-node")
		code, out := testserve.Run(t, "install", "--kubeconfig", c.Kubeconfig)
		if code != 0 {
			t.Fatalf("install: exit %d\n%s", code, out)
		}
		if !strings.Contains(out, "role.rbac.authorization.k8s.io/kube32-node deleted\n") || strings.Contains(out, "rolebinding.rbac.authorization.k8s.io/kube32-node deleted") {
			t.Errorf("install printed:\n%s\nwant the Role deleted and the RoleBinding left", out)
		}
		if _, err := k.try("", "get", "role", "kube32-node", "-n", "kube-node-lease"); err == nil {
			t.Error("the earlier install's Role is still there")
		}
		if _, err := k.try("", "get", "rolebinding", "kube32-node", "-n", "kube-node-lease"); err != nil {
			t.Errorf("the RoleBinding someone else made is gone: %v", err)
		}
		k.run("", "delete", "rolebinding", "kube32-node", "-n", "kube-node-lease")
	})

	t.Run("install --dry-run -o yaml is what kubectl apply accepts", func(t *testing.T) {
		k := k.on(t)
		code, out := testserve.Run(t, "install", "--dry-run", "-o", "yaml")
		if code != 0 {
			t.Fatalf("install --dry-run -o yaml: exit %d\n%s", code, out)
		}
		applied := k.run(out, "apply", "--dry-run=server", "--server-side", "--field-manager", "kube32-install", "-f", "-")
		for _, name := range host.KubernetesInstallNames() {
			if !strings.Contains(applied, name) {
				t.Errorf("kubectl apply --dry-run=server does not name %s:\n%s", name, applied)
			}
		}
	})

	t.Run("the StaticBundle CRD is Established and keeps spec.image", func(t *testing.T) {
		k := k.on(t)
		crd := "staticbundles.kube32.io"
		if got := k.run("", "get", "crd", crd, "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`); got != "True" {
			t.Errorf("CRD %s Established=%q", crd, got)
		}
		k.run(staticBundleYAML("probe", "registry.example/site:v1"), "create", "-f", "-")
		if got := k.run("", "get", "staticbundle", "probe", "-n", "default", "-o", "jsonpath={.spec.image} {.spec.description}"); got != "registry.example/site:v1 probe bundle" {
			t.Errorf("StaticBundle probe spec: %q", got)
		}
	})

	t.Run("a pod of RuntimeClass kube32 tolerates the kube32 taint and selects kube32 nodes", func(t *testing.T) {
		k := k.on(t)
		k.run(runtimeClassPod, "create", "-f", "-")
		sel := k.run("", "get", "pod", "wasm", "-n", "default", "-o", "jsonpath={.spec.nodeSelector}")
		for _, want := range []string{`"kubernetes.io/os":"kube32"`, `"kubernetes.io/arch":"wasm32"`} {
			if !strings.Contains(sel, want) {
				t.Errorf("pod nodeSelector %s lacks %s", sel, want)
			}
		}
		tol := k.run("", "get", "pod", "wasm", "-n", "default", "-o", "jsonpath={.spec.tolerations}")
		want := fmt.Sprintf(`{"effect":"NoSchedule","key":"%s","operator":"Equal","value":"true"}`, abi.TaintWasm)
		if !strings.Contains(tol, want) {
			t.Errorf("pod tolerations %s lack %s", tol, want)
		}
	})

	t.Run("the node and ingress ServiceAccounts may do what they do and no more", func(t *testing.T) {
		k := k.on(t)
		for _, c := range []struct {
			account string
			args    string // kubectl auth can-i VERB RESOURCE [-n NS]
			allowed bool
		}{
			// kube32-node only asks for a node's own certificate
			// (docs/kubernetes-install.md); the node then acts as itself.
			{"kube32-node", "create certificatesigningrequests.certificates.k8s.io", true},
			{"kube32-node", "get certificatesigningrequests.certificates.k8s.io", true},
			{"kube32-node", "create certificatesigningrequests.certificates.k8s.io --subresource=nodeclient", true},
			{"kube32-node", "create certificatesigningrequests.certificates.k8s.io --subresource=selfnodeclient", false},
			{"kube32-node", "update certificatesigningrequests.certificates.k8s.io --subresource=approval", false},
			{"kube32-node", "create nodes", false},
			{"kube32-node", "patch nodes", false},
			{"kube32-node", "update nodes --subresource=status", false},
			{"kube32-node", "watch pods", false},
			{"kube32-node", "delete pods -n default", false},
			{"kube32-node", "update pods --subresource=status -n default", false},
			{"kube32-node", "create events -n default", false},
			{"kube32-node", "update leases.coordination.k8s.io -n kube-node-lease", false},
			{"kube32-node", "list networkpolicies.networking.k8s.io", false},
			{"kube32-node", "get secrets -n default", false},
			{"kube32-ingress", "watch ingresses.networking.k8s.io", true},
			{"kube32-ingress", "patch ingresses.networking.k8s.io --subresource=status -n default", true},
			{"kube32-ingress", "list staticbundles.kube32.io", true},
			{"kube32-ingress", "watch pods", true},
			{"kube32-ingress", "get secrets -n default", false},
			{"kube32-ingress", "update ingresses.networking.k8s.io -n default", false},
			{"kube32-ingress", "delete pods -n default", false},
		} {
			args := append([]string{"auth", "can-i", "--as", "system:serviceaccount:" + abi.NamespaceSystem + ":" + c.account}, strings.Fields(c.args)...)
			got, _ := k.try("", args...) // can-i exits 1 for "no"
			if want := map[bool]string{true: "yes", false: "no"}[c.allowed]; got != want {
				t.Errorf("%s may %s: %q, want %s", c.account, c.args, got, want)
			}
		}
	})

	t.Run("ingress routes the Ingresses of class kube32 and publishes its IP", func(t *testing.T) {
		k := k.on(t)
		images := t.TempDir()
		site := filepath.Join(images, "firmware", "images", "web", "site")
		if err := os.MkdirAll(site, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(site, "index.html"), []byte("<h1>site on kubernetes</h1>"), 0o644); err != nil {
			t.Fatal(err)
		}
		k.run(staticBundleYAML("site", "")+"---\n"+classIngresses, "apply", "-f", "-")

		// The controller runs as the kube32-ingress ServiceAccount: its
		// ClusterRole is enough.
		token := k.run("", "create", "token", "kube32-ingress", "-n", abi.NamespaceSystem)
		ing := testserve.Ingress(t, "--kubeconfig", c.TokenKubeconfig(t, token), "--images", images)
		testenv.Eventually(t, "the ingress to list the cluster's objects", ing.Synced)

		testenv.EventuallyNil(t, "GET / to serve StaticBundle site", func() error {
			if r := ingressGet(t, ing.URL()+"/", "site.example"); r.status != http.StatusOK || r.body != "<h1>site on kubernetes</h1>" {
				return fmt.Errorf("GET /: %d %q", r.status, r.body)
			}
			return nil
		})
		testenv.EventuallyNil(t, "Ingress site's status.loadBalancer to show 127.0.0.1", func() error {
			if ip, _ := k.try("", "get", "ingress", "site", "-n", "default", "-o", "jsonpath={.status.loadBalancer.ingress[0].ip}"); ip != "127.0.0.1" {
				return fmt.Errorf("status.loadBalancer.ingress[0].ip %q", ip)
			}
			return nil
		})
		// An Ingress of another class, or of none while kube32 is not the
		// default class, is another controller's.
		for _, host := range []string{"other.example", "noclass.example"} {
			if r := ingressGet(t, ing.URL()+"/", host); r.status != http.StatusNotFound {
				t.Errorf("GET / Host %s: %d %q, want 404: no Ingress of class kube32 has the host", host, r.status, r.body)
			}
		}
		if ip, _ := k.try("", "get", "ingress", "other", "-n", "default", "-o", "jsonpath={.status.loadBalancer.ingress}"); ip != "" {
			t.Errorf("Ingress other of class nginx got status %s", ip)
		}
		// A Service whose only pod is a container pod (no RuntimeClass
		// kube32) has no pod this controller can reach: 503, never a
		// proxy to the container pod's kubelet.
		k.run(containerPodBehindIngress, "apply", "-f", "-")
		k.run("", "patch", "pod", "container", "-n", "default", "--subresource=status", "--type=merge",
			"-p", `{"status":{"phase":"Running","podIP":"127.0.0.9","podIPs":[{"ip":"127.0.0.9"}]}}`)
		testenv.EventuallyNil(t, "the container pod's Service to answer 503", func() error {
			r := ingressGet(t, ing.URL()+"/", "container.example")
			if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "no running pod") {
				return fmt.Errorf("GET / Host container.example: %d %q", r.status, r.body)
			}
			return nil
		})
		// Marked default, kube32 takes the Ingresses without a class.
		k.run("", "annotate", "ingressclass", abi.IngressClassName, "ingressclass.kubernetes.io/is-default-class=true")
		testenv.EventuallyNil(t, "Ingress noclass to be routed once kube32 is the default class", func() error {
			if r := ingressGet(t, ing.URL()+"/x", "noclass.example"); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "StaticBundle missing") {
				return fmt.Errorf("GET /x Host noclass.example: %d %q", r.status, r.body)
			}
			return nil
		})
	})

	t.Run("ingress proxies a Service's kube32 pods to their kube32 node", func(t *testing.T) {
		k := k.on(t)
		// A real kube32 node asks for its own identity as the kube32-node
		// ServiceAccount, joins the cluster as system:node:wasm-1, and runs
		// the echo pod of the built-in demo.
		token := k.run("", "create", "token", "kube32-node", "-n", abi.NamespaceSystem)
		cfg, err := host.KubernetesConfig(c.TokenKubeconfig(t, token), "")
		if err != nil {
			t.Fatal(err)
		}
		// With a board the Node reports room for pods (kube-scheduler
		// places none on a Node without status.allocatable.pods).
		board, err := abi.ChooseBoard(abi.BoardNames()[0])
		if err != nil {
			t.Fatal(err)
		}
		nodeOut := &testserve.Output{}
		w, err := host.StartWorker(context.Background(), host.WorkerOptions{
			Name: "wasm-1", NodeIP: "127.0.0.2", Images: demo.Images(), Kubernetes: &host.KubernetesOptions{Config: cfg}, Board: board,
			Logf: func(format string, args ...any) { fmt.Fprintf(nodeOut, format+"\n", args...) },
		})
		if err != nil {
			t.Fatalf("kube32 node joining the cluster: %v", err)
		}
		t.Cleanup(func() {
			w.Close()
			if t.Failed() {
				t.Logf("node output:\n%s", nodeOut)
			}
		})
		k.run(echoBehindIngress, "apply", "-f", "-")
		if _, err := k.try("", "wait", "--for=condition=Ready", "pod/echo", "-n", "default", "--timeout=120s"); err != nil {
			nodes, _ := k.try("", "get", "nodes", "-o", "wide")
			pod, _ := k.try("", "describe", "pod", "echo", "-n", "default")
			t.Fatalf("%v\nnodes:\n%s\npod:\n%s", err, nodes, pod)
		}

		ing := testserve.Ingress(t, "--kubeconfig", c.Kubeconfig)
		testenv.EventuallyNil(t, "POST /echo/hello to reach the echo pod through its node", func() error {
			req, _ := http.NewRequest(http.MethodPost, ing.URL()+"/echo/hello", strings.NewReader("hi there"))
			req.Host = "echo.example"
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"body":"hi there"`) || !strings.Contains(string(b), "hello from echo") {
				return fmt.Errorf("POST /echo/hello: %d %s", resp.StatusCode, b)
			}
			return nil
		})
	})
}

type ingressResponse struct {
	status int
	body   string
}

func ingressGet(t *testing.T, url, hostHeader string) ingressResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = hostHeader
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return ingressResponse{resp.StatusCode, string(b)}
}

// installDryRunObjects are the objects `install --dry-run -o yaml` prints.
func installDryRunObjects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	code, out := testserve.Run(t, "install", "--dry-run", "-o", "yaml")
	if code != 0 {
		t.Fatalf("install --dry-run -o yaml: exit %d\n%s", code, out)
	}
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(out, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("install --dry-run -o yaml: %v\n%s", err, doc)
		}
		objs = append(objs, u)
	}
	if len(objs) != len(host.KubernetesInstallNames()) {
		t.Fatalf("install --dry-run -o yaml prints %d objects, install applies %d", len(objs), len(host.KubernetesInstallNames()))
	}
	return objs
}

// wantInstallLines checks that out has "<name> <state>" for every name, in order.
func wantInstallLines(t *testing.T, out string, names []string, state string) {
	t.Helper()
	var want []string
	for _, n := range names {
		want = append(want, n+" "+state)
	}
	if got := strings.Split(strings.TrimSpace(out), "\n"); !slices.Equal(got, want) {
		t.Errorf("install printed:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

// k8sKubectl runs the real kubectl on the test's cluster.
type k8sKubectl struct {
	t                *testing.T
	path, kubeconfig string
}

// on is k for the (sub)test t.
func (k k8sKubectl) on(t *testing.T) k8sKubectl { k.t = t; return k }

func (k k8sKubectl) try(stdin string, args ...string) (string, error) {
	cmd := exec.Command(k.path, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return strings.TrimSpace(string(out)), fmt.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

func (k k8sKubectl) run(stdin string, args ...string) string {
	k.t.Helper()
	out, err := k.try(stdin, args...)
	if err != nil {
		k.t.Fatal(err)
	}
	return out
}

// resourceVersions are the objects' resourceVersions, read with kubectl.
func (k k8sKubectl) resourceVersions(objs []*unstructured.Unstructured) []string {
	k.t.Helper()
	var out []string
	for _, o := range objs {
		args := []string{"get", strings.ToLower(o.GetKind()) + "." + o.GroupVersionKind().Group, o.GetName(), "-o", "jsonpath={.metadata.resourceVersion}"}
		if o.GroupVersionKind().Group == "" {
			args[1] = strings.ToLower(o.GetKind())
		}
		if ns := o.GetNamespace(); ns != "" {
			args = append(args, "-n", ns)
		}
		out = append(out, o.GetName()+"="+k.run("", args...))
	}
	return out
}

func staticBundleYAML(name, image string) string {
	spec := fmt.Sprintf("  description: %s bundle\n", name)
	if image != "" {
		spec += "  image: " + image + "\n"
	}
	return fmt.Sprintf("apiVersion: kube32.io/v1\nkind: StaticBundle\nmetadata:\n  name: %s\n  namespace: default\nspec:\n%s", name, spec)
}

const runtimeClassPod = `apiVersion: v1
kind: Pod
metadata:
  name: wasm
  namespace: default
spec:
  runtimeClassName: kube32
  containers:
  - name: app
    image: echo.wasm
`

// ingresses: site (class kube32) serves StaticBundle site at / of
// site.example; other
// (class nginx) and noclass (no class) would serve StaticBundle missing on
// their hosts, were they routed.
var classIngresses = testmanifest.Docs(
	testmanifest.HostIngress("default/site", "kube32", "site.example", testmanifest.Path("/", testmanifest.ToBundle("site"))),
	testmanifest.HostIngress("default/other", "nginx", "other.example", testmanifest.Path("/", testmanifest.ToBundle("missing"))),
	testmanifest.HostIngress("default/noclass", "", "noclass.example", testmanifest.Path("/", testmanifest.ToBundle("missing"))))

// echoBehindIngress: the demo's echo pod as a kube32 pod (RuntimeClass
// kube32, which sends it to the kube32 node), its Service, and an Ingress
// of class kube32 to it on echo.example.
var echoBehindIngress = `apiVersion: v1
kind: Pod
metadata:
  name: echo
  namespace: default
  labels: {app: echo}
spec:
  runtimeClassName: kube32
  containers:
  - name: echo
    image: wasm://embedded/echo
    ports:
    - {containerPort: 7000, name: http}
    env:
    - {name: GREETING, value: hello from echo}
    resources:
      limits: {memory: 64Ki}
---
apiVersion: v1
kind: Service
metadata:
  name: echo
  namespace: default
spec:
  selector: {app: echo}
  ports:
  - {name: http, port: 80, targetPort: 7000}
---
` + testmanifest.HostIngress("default/echo", "kube32", "echo.example", testmanifest.Path("/echo", testmanifest.ToService("echo")))

// install and ingress refuse to run without the cluster's kubeconfig, and
// install's -o only prints a dry run: usage errors (exit 2) naming the flag.
func TestInstallAndIngressUsageErrorsNameTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"install"}, "--kubeconfig"},
		{[]string{"ingress"}, "--kubeconfig"},
		{[]string{"install", "--kubeconfig", "x", "-o", "yaml"}, "--dry-run"},
		{[]string{"install", "--dry-run", "-o", "json"}, "-o yaml"},
	} {
		code, out := testserve.Run(t, c.args...)
		if code != 2 || !strings.Contains(out, c.flag) {
			t.Errorf("kube32 %s: exit %d, %q; want 2 and a word about %s", strings.Join(c.args, " "), code, out, c.flag)
		}
	}
}

// containerPodBehindIngress: a container pod (no RuntimeClass) on a
// container node, behind a Service that an Ingress of class kube32 routes
// on container.example.
var containerPodBehindIngress = `apiVersion: v1
kind: Node
metadata:
  name: container-node
status:
  addresses: [{type: InternalIP, address: 127.0.0.9}]
  daemonEndpoints: {kubeletEndpoint: {Port: 10250}}
---
apiVersion: v1
kind: Pod
metadata:
  name: container
  namespace: default
  labels: {app: container}
spec:
  nodeName: container-node
  containers:
  - name: c
    image: registry.example/app:v1
    ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata:
  name: container
  namespace: default
spec:
  selector: {app: container}
  ports: [{port: 80, targetPort: 8080}]
---
` + testmanifest.HostIngress("default/container", "kube32", "container.example", testmanifest.Path("/", "{service: {name: container, port: {number: 80}}}"))
