package ingress

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// controllerIP is the address the test controllers publish.
const controllerIP = "192.0.2.32"

// fakePods stands in for the kubelet at unit level: every pod it knows
// answers with its own name, so a test sees which pod a request reached.
type fakePods struct {
	mu   sync.Mutex
	down map[string]bool // "<namespace>/<name>" of pods whose handler is gone
}

func (f *fakePods) Handler(namespace, name string) (http.Handler, bool) {
	id := namespace + "/" + name
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down[id] {
		return nil, false
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Test-Pod", id)
		fmt.Fprintf(w, "pod %s", id)
	}), true
}

func (f *fakePods) setDown(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down == nil {
		f.down = map[string]bool{}
	}
	f.down[id] = true
}

// env is a controller over a real store, served on 127.0.0.1.
type env struct {
	store *store.Store
	ctl   *Controller
	pods  *fakePods
	url   string
}

// start applies objs to a new store and serves a controller over it.
func start(t *testing.T, objs ...runtime.Object) *env {
	t.Helper()
	s := store.New()
	for _, o := range objs {
		s.Apply(o)
	}
	pods := &fakePods{}
	var logs []string
	var logMu sync.Mutex
	ctl := New(Config{Store: s, Node: controlPlane, Local: pods, Images: os.DirFS("testdata/images"), IP: controllerIP,
		Log: func(format string, args ...any) {
			logMu.Lock()
			defer logMu.Unlock()
			logs = append(logs, fmt.Sprintf(format, args...))
		}})
	srv := httptest.NewServer(ctl) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); ctl.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	t.Cleanup(func() {
		if t.Failed() {
			logMu.Lock()
			defer logMu.Unlock()
			for _, l := range logs {
				t.Log("controller: " + l)
			}
		}
	})
	return &env{store: s, ctl: ctl, pods: pods, url: srv.URL}
}

// reply is a response with its body read.
type reply = testhttp.Reply

// do sends method host path with the given header lines ("Name: value").
func (e *env) do(t *testing.T, method, host, path string, headers ...string) reply {
	t.Helper()
	if host != "" {
		headers = append(headers, "Host: "+host)
	}
	return testhttp.Do(t, method, e.url+path, "", headers...)
}

func (e *env) get(t *testing.T, host, path string, headers ...string) reply {
	t.Helper()
	return e.do(t, http.MethodGet, host, path, headers...)
}

// raw sends a request line with target exactly as written (no client-side
// cleaning or escaping), for the bundle escape tests.
func (e *env) raw(t *testing.T, target string) reply {
	t.Helper()
	return testhttp.Raw(t, strings.TrimPrefix(e.url, "http://"), "example.test", target)
}

// Object builders. Every Service selects app=<its name> and has port 80
// named http; backends(ns, names...) makes a Service and a Running pod of
// the same name for each.

// controlPlane is the node the controller runs on, and the pods' node.
const controlPlane = "kube32-control-plane"

// pod is a pod on the control plane; a Running one has its node's IP.
func pod(ns, name string, podLabels map[string]string, phase corev1.PodPhase, ports ...corev1.ContainerPort) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: podLabels},
		Spec: corev1.PodSpec{
			NodeName:   controlPlane,
			Containers: []corev1.Container{{Name: "c", Image: "wasm://embedded/" + name, Ports: ports}},
		},
		Status: corev1.PodStatus{Phase: phase},
	}
	if phase == corev1.PodRunning {
		p.Status.PodIP = "127.0.0.1"
	}
	return p
}

func service(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	if len(ports) == 0 {
		ports = []corev1.ServicePort{{Name: "http", Port: 80}}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": name}, Ports: ports},
	}
}

func backends(ns string, names ...string) []runtime.Object {
	var objs []runtime.Object
	for _, n := range names {
		objs = append(objs, service(ns, n), pod(ns, n, map[string]string{"app": n}, corev1.PodRunning))
	}
	return objs
}

func ingress(ns, name string, class *string, rules ...networkingv1.IngressRule) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       networkingv1.IngressSpec{IngressClassName: class, Rules: rules},
	}
}

func rule(host string, paths ...networkingv1.HTTPIngressPath) networkingv1.IngressRule {
	return networkingv1.IngressRule{Host: host,
		IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}
}

func toService(pathType networkingv1.PathType, path, svc string) networkingv1.HTTPIngressPath {
	return networkingv1.HTTPIngressPath{Path: path, PathType: &pathType, Backend: serviceBackendRef(svc, 80, "")}
}

func serviceBackendRef(svc string, number int32, name string) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
		Name: svc, Port: networkingv1.ServiceBackendPort{Number: number, Name: name}}}
}

func toBundle(pathType networkingv1.PathType, path, bundle string) networkingv1.HTTPIngressPath {
	group := kube32v1.GroupName
	return networkingv1.HTTPIngressPath{Path: path, PathType: &pathType, Backend: networkingv1.IngressBackend{
		Resource: &corev1.TypedLocalObjectReference{APIGroup: &group, Kind: "StaticBundle", Name: bundle}}}
}

func ptr[T any](v T) *T { return &v }

const (
	exact    = networkingv1.PathTypeExact
	prefix   = networkingv1.PathTypePrefix
	implSpec = networkingv1.PathTypeImplementationSpecific
)

// pollUntil retries f until it reports done, failing after a generous
// deadline; tests wait for convergence, never for a duration.
func pollUntil(t *testing.T, f func() (reply, bool)) reply {
	t.Helper()
	var r reply
	testenv.EventuallyNil(t, "the controller to converge", func() error {
		var done bool
		if r, done = f(); done {
			return nil
		}
		return fmt.Errorf("last answer %d %q", r.Status, r.Body)
	})
	return r
}
