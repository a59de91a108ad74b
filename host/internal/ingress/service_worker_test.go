package ingress

import (
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// "When the selected pods run on worker nodes, the controller load-balances
// across them in round-robin order and proxies the request over HTTP/1.1
// keep-alive to the pod's node IP ... with the header X-Kube32-Pod:
// <namespace>/<name>." Pods on the control plane stay in-process.
func TestServiceBackendProxiesToWorkerPods(t *testing.T) {
	worker, conns := startWorkerW1(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "node w1 %s chain=%q path=%s", r.Header.Get("X-Kube32-Pod"), r.Header.Get("X-Kube32-Call-Chain"), r.URL.Path)
	}))
	e := start(t, worker, ingress("default", "site", nil, rule("", toService(prefix, "/", "web"))), service("default", "web"),
		pod("default", "web-a", map[string]string{"app": "web"}, corev1.PodRunning), onWorkerW1("web-b"), onWorkerW1("web-c"))
	e.pods.setDown("default/web-b") // the control plane's kubelet does not run them
	e.pods.setDown("default/web-c")

	var got []string
	for i := 0; i < 6; i++ {
		r := e.get(t, "", "/x", "X-Kube32-Call-Chain: default/web-b")
		if r.Status != 200 {
			t.Fatalf("GET /x: %d %s", r.Status, r.Body)
		}
		got = append(got, r.Body)
	}
	sort.Strings(got)
	want := []string{
		`node w1 default/web-b chain="" path=/x`, `node w1 default/web-b chain="" path=/x`,
		`node w1 default/web-c chain="" path=/x`, `node w1 default/web-c chain="" path=/x`,
		"pod default/web-a", "pod default/web-a",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections to the node, want 1 kept alive", n)
	}
}

// A pod whose node says it does not run there (gone, or terminating:
// abi.HeaderPodMissing, as the pod port answers) is skipped for the next
// pod, before anything is written to the client; the connection to the
// node stays in the pool. A pod's own 404 is its answer.
func TestServiceBackendSkipsAPodItsNodeNoLongerRuns(t *testing.T) {
	worker, conns := startWorkerW1(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(abi.HeaderPod)
		switch {
		case id == "default/web-b":
			w.Header().Set(abi.HeaderPodMissing, id)
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"pod not running on this node"}`)
		case r.URL.Path == "/nothing":
			http.NotFound(w, r)
		default:
			fmt.Fprintf(w, "node w1 %s", id)
		}
	}))
	e := start(t, worker, ingress("default", "site", nil, rule("", toService(prefix, "/", "web"))), service("default", "web"),
		onWorkerW1("web-b"), onWorkerW1("web-c"))
	e.pods.setDown("default/web-b")
	e.pods.setDown("default/web-c")
	for i := range 6 {
		if r := e.get(t, "", "/x"); r.Status != 200 || r.Body != "node w1 default/web-c" {
			t.Fatalf("request %d: %d %q, want the answer of web-c", i, r.Status, r.Body)
		}
	}
	if r := e.get(t, "", "/nothing"); r.Status != http.StatusNotFound || r.Header.Get(abi.HeaderPodMissing) != "" {
		t.Fatalf("a pod's own 404: %s", r)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections to the node, want 1 kept alive", n)
	}
}

// startWorkerW1 serves handler as the pod port of a worker node "w1" on
// 127.0.0.2 until the test ends, and returns its Node and the count of
// connections it took.
func startWorkerW1(t *testing.T, handler http.Handler) (*corev1.Node, *atomic.Int32) {
	t.Helper()
	conns := &atomic.Int32{}
	node := testhttp.Server(t, "127.0.0.2", handler)
	node.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	node.Start()
	port := node.Listener.Addr().(*net.TCPAddr).Port
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Status: corev1.NodeStatus{
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.2"}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(port)}}}}, conns
}

// onWorkerW1 is a running pod "default/NAME" of app web bound to w1.
func onWorkerW1(name string) *corev1.Pod {
	p := pod("default", name, map[string]string{"app": "web"}, corev1.PodRunning)
	p.Spec.NodeName = "w1"
	p.Status.PodIP = "127.0.0.2"
	return p
}
