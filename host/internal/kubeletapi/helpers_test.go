package kubeletapi

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/kubelet"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

const nodeName = "kube32-node-1"

// node is a real kubelet over a store, running the C test pod good
// (internal/testkit/testpods/c/good.c: each request logs "hi" and "out") as
// default/web, which declares containerPort 8080, and the C test pod
// faults (faults.c: /deep traps) as default/trap.
type node struct {
	store   *store.Store
	kubelet *kubelet.Kubelet
}

func startNode(t *testing.T) *node {
	t.Helper()
	good, faults := testpods.Fixture(t, "good", 65536), testpods.Fixture(t, "faults", 65536)
	n := &node{store: store.New()}
	source := kubelet.StoreSource(n.store)
	policy, err := outbound.NewPolicy(source, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.kubelet, err = kubelet.New(kubelet.Config{NodeName: nodeName, NodeIP: "127.0.0.1", ControlPlane: true, Source: source, Policy: policy,
		Images:         fstest.MapFS{"firmware/images/wasm/good.wasm": &fstest.MapFile{Data: good}, "firmware/images/wasm/faults.wasm": &fstest.MapFile{Data: faults}},
		HandlerTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); n.kubelet.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	trap := webPod()
	trap.Name, trap.Spec.Containers[0].Image = "trap", "wasm://embedded/faults"
	for _, p := range []*corev1.Pod{webPod(), trap} {
		if _, err := n.store.Create(p); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, "pod default/"+p.Name+" running", func() bool {
			_, st, ok := n.kubelet.Running("default", p.Name)
			return ok && st.Phase == "Running"
		})
	}
	return n
}

// webPod is default/web on the node, as both the kubelet's store and a
// real cluster hold it.
func webPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/good",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
	}
}

// call sends one request to default/web, in-process, which logs two
// lines.
func (n *node) call(t *testing.T) {
	t.Helper()
	if code := n.request(t, "web", "/"); code != http.StatusOK {
		t.Fatalf("pod default/web answered %d", code)
	}
}

// request sends GET path to the pod name, in-process, and returns the
// status it answered.
func (n *node) request(t *testing.T, name, path string) int {
	t.Helper()
	h, ok := n.kubelet.Handler("default", name)
	if !ok {
		t.Fatalf("pod default/%s has no handler", name)
	}
	rec := &discard{header: http.Header{}}
	h.ServeHTTP(rec, mustRequest(t, "GET", "http://"+name+path, ""))
	if rec.code == 0 {
		return http.StatusOK
	}
	return rec.code
}

type discard struct {
	header http.Header
	code   int
}

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// serveAPI serves the kubelet API of n on 127.0.0.1 until the test ends
// and returns its address.
func serveAPI(t *testing.T, n *node, cfg Config) string {
	t.Helper()
	_, addr := startAPI(t, n, cfg)
	return addr
}

// startAPI is serveAPI that returns the Server too, whose caches a test
// reads.
func startAPI(t *testing.T, n *node, cfg Config) (*Server, string) {
	t.Helper()
	cfg.NodeName, cfg.NodeIP, cfg.Pods = nodeName, "127.0.0.1", n.kubelet
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return s, l.Addr().String()
}

// client is an HTTPS client of the API showing certs, trusting its
// self-signed certificate as kube-apiserver does (without
// --kubelet-certificate-authority it verifies none).
func client(certs ...tls.Certificate) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, Certificates: certs}}}
}

// clientFrom is client connecting from the loopback address ip, another
// client address to the API's per-address budgets, keeping up to conns
// connections alive.
func clientFrom(ip string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Timeout: time.Minute, // a bound, not an expectation
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: conns,
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
}

func mustRequest(t *testing.T, method, url, token string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// do sends method url with token and returns the status and body.
func do(t *testing.T, c *http.Client, method, url, token string) (int, string) {
	t.Helper()
	resp, err := c.Do(mustRequest(t, method, url, token))
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// lines splits a log answer into its lines.
func lines(body string) []string {
	return strings.Split(strings.TrimSuffix(body, "\n"), "\n")
}

// closedPort is a loopback address nothing listens on: a cluster whose
// API cannot be reached.
func closedPort(t *testing.T) *rest.Config {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return &rest.Config{Host: "https://" + addr, BearerToken: "reviewer", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}
