package cluster

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// kubectlEnv runs the real kubectl against a cluster.
type kubectlEnv struct {
	kubectl, kubeconfig, cacheDir string
}

func newKubectl(t *testing.T, c *Cluster, token string) *kubectlEnv {
	t.Helper()
	dir := t.TempDir()
	k := &kubectlEnv{kubectl: testenv.Tool(t, "kubectl"), kubeconfig: filepath.Join(dir, "kubeconfig"), cacheDir: filepath.Join(dir, "cache")}
	if err := kubeconfig.Write(k.kubeconfig, kubeconfig.Entry{Server: c.APIURL(), Token: token}); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k *kubectlEnv) cmd(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(k.kubectl, append([]string{"--context", "kube32", "--cache-dir", k.cacheDir, "--request-timeout", "20s"}, args...)...)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+k.kubeconfig), env...)
	return cmd
}

// run runs kubectl to its end and returns its combined output and whether
// it succeeded.
func (k *kubectlEnv) run(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	out, err := k.cmd(nil, args...).CombinedOutput()
	return string(out), err == nil
}

// portForward starts `kubectl port-forward target :port` and returns the
// local address kubectl chose and kubectl's stderr; kubectl is killed at
// the end of the test.
func (k *kubectlEnv) portForward(t *testing.T, env []string, target, port string) (string, *testenv.Buffer) {
	t.Helper()
	return testenv.PortForward(t, k.cmd(env, "port-forward", target, ":"+port))
}

// forwardedPod is a pod pinned to node, with app=<app> and containerPort
// 7000, running the fixture image.
func forwardedPod(name, app, node, image string) manifest.Object {
	return manifest.Object{Obj: pinnedPod(name, app, node, image, corev1.Container{
		Env:   []corev1.EnvVar{{Name: "WHO", Value: name}},
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 7000, Protocol: corev1.ProtocolTCP}}})}
}

// startForwardCluster runs two nodes: relay pods "cp" on the control plane
// and "w1" on the worker (the Service "w" selects w1, port 80 to "http"),
// and the faults pod "trap" on the control plane.
func startForwardCluster(t *testing.T, token string) *Cluster {
	t.Helper()
	dir := t.TempDir()
	wasmDir := filepath.Join(dir, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"relay", "faults"} {
		if err := os.WriteFile(filepath.Join(wasmDir, name+".wasm"), testpods.Fixture(t, name, 65536), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	svc := manifest.Object{Obj: &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "w"},
			Ports: []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}},
	}}
	return startReady(t, Options{Images: os.DirFS(dir), Nodes: 2, Token: token, Objects: []manifest.Object{
		forwardedPod("cp", "cp", ControlPlaneName, "relay"), forwardedPod("w1", "w", WorkerName(1), "relay"),
		forwardedPod("trap", "trap", ControlPlaneName, "faults"), svc,
	}}, "cp", "w1", "trap")
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

// TestKubectlPortForward forwards a local port with the real kubectl to a
// pod on the control plane, to one on a worker and to a Service, over the
// WebSocket tunnel kubectl uses by default and over plain SPDY, and sends
// HTTP through it: each request reaches the pod named.
func TestKubectlPortForward(t *testing.T) {
	c := startForwardCluster(t, "")
	k := newKubectl(t, c, "")
	for _, transport := range []struct {
		name string
		env  []string
	}{
		{"websocket", nil},
		{"spdy", []string{"KUBECTL_PORT_FORWARD_WEBSOCKETS=false"}},
	} {
		for _, tt := range []struct{ target, port, who string }{
			{"pod/cp", "7000", "cp"},
			{"pod/w1", "7000", "w1"},
			{"svc/w", "80", "w1"},
		} {
			t.Run(transport.name+"/"+tt.target, func(t *testing.T) {
				addr, stderr := k.portForward(t, transport.env, tt.target, tt.port)
				for i := range 3 { // keep-alive: one forwarded connection, several requests
					code, body := get(t, "http://"+addr+"/hello")
					if code != http.StatusOK || !strings.Contains(body, "who="+tt.who) || !strings.Contains(body, "/hello") {
						t.Fatalf("request %d through %s: %d %q, want 200 from pod %s", i, tt.target, code, body, tt.who)
					}
				}
				if s := stderr.String(); s != "" {
					t.Errorf("kubectl port-forward %s wrote to stderr: %s", tt.target, s)
				}
			})
		}
	}

	t.Run("undeclared port", func(t *testing.T) {
		addr, stderr := k.portForward(t, nil, "pod/cp", "7001")
		if _, err := http.Get("http://" + addr + "/"); err == nil {
			t.Error("a request to a port the container does not declare was answered")
		}
		testenv.Eventually(t, "kubectl to report the refused port", func() bool {
			return strings.Contains(stderr.String(), "error forwarding port 7001 to pod default/cp") &&
				strings.Contains(stderr.String(), "does not declare port 7001 (it declares 7000)")
		})
	})
}

// TestKubectlLogsPrevious restarts a pod with a trap and reads the
// previous instance's log with kubectl logs --previous; exec, attach and cp
// say why a wasm pod has none of them.
func TestKubectlLogsPrevious(t *testing.T) {
	c := startForwardCluster(t, "")
	k := newKubectl(t, c, "")

	out, ok := k.run(t, "logs", "trap", "--previous")
	if ok || !strings.Contains(out, `previous terminated container "main" in pod "trap" not found`) {
		t.Errorf("kubectl logs --previous before any restart: ok=%v %q", ok, out)
	}

	addr, _ := k.portForward(t, nil, "pod/trap", "7000")
	if code, body := get(t, "http://"+addr+"/deep"); code < 500 {
		t.Fatalf("GET /deep: %d %q, want the trap's 5xx", code, body)
	}
	testenv.Eventually(t, "pod trap to count its restart", func() bool {
		o, ok := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "trap"})
		st := o.(*corev1.Pod).Status.ContainerStatuses
		return ok && len(st) == 1 && st[0].RestartCount == 1
	})
	out, ok = k.run(t, "logs", "trap", "--previous")
	if !ok || !strings.Contains(out, "[POD] default/trap started") || !strings.Contains(out, "k32_handle trapped") || strings.Contains(out, "restarted") {
		t.Errorf("kubectl logs --previous after a trap: ok=%v %q, want the first instance's lines only", ok, out)
	}
	if code, body := get(t, "http://"+addr+"/check"); code != http.StatusOK {
		t.Fatalf("GET /check on the fresh instance: %d %q", code, body)
	}
	if out, ok := k.run(t, "logs", "trap"); !ok || !strings.Contains(out, "restarted on a fresh instance") {
		t.Errorf("kubectl logs after a trap: ok=%v %q", ok, out)
	}

	for _, args := range [][]string{
		{"exec", "trap", "--", "sh"},
		{"attach", "trap"},
		{"cp", "trap:/etc/hostname", filepath.Join(t.TempDir(), "hostname")},
	} {
		out, ok := k.run(t, args...)
		if ok || !strings.Contains(out, "WebAssembly module with no shell") {
			t.Errorf("kubectl %s: ok=%v %q, want the no-shell message", strings.Join(args, " "), ok, out)
		}
	}
}
