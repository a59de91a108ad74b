package cluster

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/scheduler"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testbuild"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// buildEcho builds examples/echo as `kube32 build` does (once per test
// run, through the fixture cache), adds the two-page module "big" to its
// firmware image, and returns the build directory and the manifests:
// echo.yaml and testdata/extra.yaml.
func buildEcho(t *testing.T) (string, []manifest.Object) {
	t.Helper()
	testenv.Tool(t, "clang")
	src := filepath.Join("..", "..", "..", "examples", "echo")
	buildDir := testbuild.Project(t, src)

	big := testpods.Fixture(t, "bigmem", 131072)
	bigPath := filepath.Join(buildDir, filepath.FromSlash(images.InRoot(images.Firmware, images.FirmwareWasmDir)), "big.wasm")
	if err := os.WriteFile(bigPath, big, 0o644); err != nil {
		t.Fatal(err)
	}

	objs, err := manifest.DecodeFiles([]string{filepath.Join(src, "echo.yaml"), filepath.Join("testdata", "extra.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	return buildDir, objs
}

// fetch sends a request with the header lines ("Name: value") and returns
// the status, headers and body.
func fetch(t *testing.T, method, url, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	r := testhttp.Do(t, method, url, body, headers...)
	return r.Status, r.Header, r.Body
}

func getPod(t *testing.T, s *store.Store, name string) *corev1.Pod {
	t.Helper()
	o, ok := s.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
	if !ok {
		t.Fatalf("pod %s is not in the store", name)
	}
	return o.(*corev1.Pod)
}

// echoReply is what examples/echo/pods/echo answers.
type echoReply struct {
	Greeting, Method, Path, Body string
}

func TestEchoCluster(t *testing.T) {
	buildDir, objs := buildEcho(t)
	var (
		logMu  sync.Mutex
		podLog strings.Builder
	)
	podLogText := func() string { logMu.Lock(); defer logMu.Unlock(); return podLog.String() }
	c, err := Start(context.Background(), Options{
		Images: os.DirFS(buildDir), Objects: objs,
		PodLog: func(ns, name string, l pod.Line) {
			logMu.Lock()
			defer logMu.Unlock()
			podLog.WriteString(ns + "/" + name + ": " + l.Text + "\n")
		},
		Logf: func(format string, args ...any) { t.Logf("cluster: "+format, args...) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	for _, u := range []string{c.IngressURL(), c.PodURL(), c.APIURL()} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Errorf("URL %s is not on 127.0.0.1", u)
		}
	}

	// /readyz on the API URL is 200 once every pod has started or failed for
	// good: the pod over its memory limit and the unschedulable pod must not
	// hold it up.
	testenv.Eventually(t, "/readyz to answer 200", func() bool {
		status, _, _ := fetch(t, http.MethodGet, c.APIURL()+"/readyz", "")
		return status == http.StatusOK
	})

	t.Run("ingress routes POST /echo/hello to the echo pod", func(t *testing.T) {
		status, _, body := fetch(t, http.MethodPost, c.IngressURL()+"/echo/hello", "ping from the test")
		if status != http.StatusOK {
			t.Fatalf("POST /echo/hello: %d %q\npod log:\n%s", status, body, podLogText())
		}
		var got echoReply
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("POST /echo/hello answered %q: %v", body, err)
		}
		want := echoReply{Greeting: "hello from echo", Method: "POST", Path: "/echo/hello", Body: "ping from the test"}
		if got != want {
			t.Errorf("POST /echo/hello = %+v, want %+v", got, want)
		}
	})

	t.Run("the ingress publishes its address", func(t *testing.T) {
		o, ok := c.Store.Get(store.Key{Kind: "Ingress", Namespace: "default", Name: "echo"})
		if !ok {
			t.Fatal("Ingress echo is not in the store")
		}
		if lb := o.(*networkingv1.Ingress).Status.LoadBalancer.Ingress; len(lb) != 1 || lb[0].IP != "127.0.0.1" {
			t.Errorf("status.loadBalancer.ingress = %+v, want ip 127.0.0.1", lb)
		}
	})

	t.Run("the pod port reaches the pod named by X-Kube32-Pod", func(t *testing.T) {
		status, _, body := fetch(t, http.MethodGet, c.PodURL()+"/direct", "", "X-Kube32-Pod: default/echo")
		var got echoReply
		if status != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || got.Path != "/direct" || got.Method != "GET" {
			t.Errorf("pod port GET /direct: %d %q, want the echo JSON for GET /direct", status, body)
		}
		if status, _, body := fetch(t, http.MethodGet, c.PodURL()+"/", ""); status != http.StatusBadRequest {
			t.Errorf("pod port without X-Kube32-Pod: %d %q, want 400", status, body)
		}
	})

	t.Run("a module over its memory limit fails its pod", func(t *testing.T) {
		p := getPod(t, c.Store, "big")
		if p.Status.Phase != corev1.PodFailed || p.Status.Reason != pod.ReasonMemoryLimitExceeded {
			t.Fatalf("pod big: phase %q reason %q, want Failed MemoryLimitExceeded", p.Status.Phase, p.Status.Reason)
		}
		for _, want := range []string{"needs 2 pages (128Ki)", "resources.limits.memory is 64Ki"} {
			if !strings.Contains(p.Status.Message, want) {
				t.Errorf("message %q lacks %q", p.Status.Message, want)
			}
		}
		// The cluster still serves echo.
		if status, _, body := fetch(t, http.MethodGet, c.IngressURL()+"/echo/still", ""); status != http.StatusOK || !strings.Contains(body, "hello from echo") {
			t.Errorf("GET /echo/still: %d %q", status, body)
		}
	})

	t.Run("a pod whose nodeSelector matches no node stays Pending, Unschedulable", func(t *testing.T) {
		p := getPod(t, c.Store, "nowhere")
		if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
			t.Fatalf("pod nowhere: node %q phase %q, want unbound and Pending", p.Spec.NodeName, p.Status.Phase)
		}
		var cond *corev1.PodCondition
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.PodScheduled {
				cond = &p.Status.Conditions[i]
			}
		}
		if cond == nil || cond.Status != corev1.ConditionFalse || cond.Reason != scheduler.ReasonUnschedulable ||
			!strings.Contains(cond.Message, "kube32.io/board=esp32-p4-nonexistent") {
			t.Errorf("PodScheduled %+v, want False, Unschedulable, naming the selector", cond)
		}
	})

	t.Run("deleting the Service's pod makes the ingress answer 503 Retry-After: 2", func(t *testing.T) {
		if !c.Store.Delete(store.Key{Kind: "Pod", Namespace: "default", Name: "echo"}) {
			t.Fatal("pod echo was not in the store")
		}
		var header http.Header
		testenv.Eventually(t, "the ingress to answer 503", func() bool {
			var status int
			status, header, _ = fetch(t, http.MethodGet, c.IngressURL()+"/echo/gone", "")
			return status == http.StatusServiceUnavailable
		})
		if got := header.Get("Retry-After"); got != "2" {
			t.Errorf("Retry-After %q, want 2", got)
		}
	})
}
