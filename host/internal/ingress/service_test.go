package ingress

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	svcs "github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

func TestServiceWithoutRunningPodAnswers503RetryAfter2(t *testing.T) {
	// "When the Service selects no running pod, the controller returns 503 with Retry-After: 2."
	terminating := pod("default", "leaving", map[string]string{"app": "web"}, corev1.PodRunning)
	terminating.DeletionTimestamp = &metav1.Time{}
	e := start(t,
		ingress("default", "site", nil, rule("",
			toService(prefix, "/web", "web"),
			toService(prefix, "/ghost", "ghost"))), // no such Service
		service("default", "web"),
		// "A Service selects Running, non-terminating pods in the same
		// namespace whose labels match spec.selector": none of these.
		pod("default", "pending", map[string]string{"app": "web"}, corev1.PodPending),
		pod("default", "failed", map[string]string{"app": "web"}, corev1.PodFailed),
		pod("default", "succeeded", map[string]string{"app": "web"}, corev1.PodSucceeded),
		pod("default", "other-labels", map[string]string{"app": "api"}, corev1.PodRunning),
		pod("other", "other-namespace", map[string]string{"app": "web"}, corev1.PodRunning),
		terminating,
	)
	for _, path := range []string{"/web", "/ghost/x"} {
		got := e.get(t, "", path)
		if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") != "2" {
			t.Errorf("GET %s: %d Retry-After %q (%q), want 503 with Retry-After: 2", path, got.Status, got.Header.Get("Retry-After"), got.Body)
		}
	}
}

func TestServiceBackendFollowsItsPods(t *testing.T) {
	// "When the Service selects no running pod, the controller returns 503
	// with Retry-After: 2": also once its only pod is deleted.
	objs := append([]runtime.Object{ingress("default", "site", nil, rule("", toService(prefix, "/", "web")))}, backends("default", "web")...)
	e := start(t, objs...)
	if got := e.get(t, "", "/"); got.Body != "pod default/web" {
		t.Fatalf("with the pod: %d %q", got.Status, got.Body)
	}
	e.store.Delete(store.Key{Kind: "Pod", Namespace: "default", Name: "web"})
	got := pollUntil(t, func() (reply, bool) {
		r := e.get(t, "", "/")
		return r, r.Status == http.StatusServiceUnavailable
	})
	if got.Header.Get("Retry-After") != "2" {
		t.Errorf("after the pod went: Retry-After %q, want 2", got.Header.Get("Retry-After"))
	}
}

func TestServiceBackendSkipsPodsWithoutAHandler(t *testing.T) {
	// A pod the store calls Running but whose runtime is gone (stopping) is
	// no backend; with no other pod the answer is 503 with Retry-After: 2.
	objs := append([]runtime.Object{ingress("default", "site", nil, rule("", toService(prefix, "/", "web")))},
		service("default", "web"),
		pod("default", "web-a", map[string]string{"app": "web"}, corev1.PodRunning),
		pod("default", "web-b", map[string]string{"app": "web"}, corev1.PodRunning))
	e := start(t, objs...)
	e.pods.setDown("default/web-a")
	for i := 0; i < 4; i++ {
		if got := e.get(t, "", "/"); got.Body != "pod default/web-b" {
			t.Fatalf("request %d: %d %q, want pod default/web-b", i, got.Status, got.Body)
		}
	}
	e.pods.setDown("default/web-b")
	if got := e.get(t, "", "/"); got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") != "2" {
		t.Fatalf("no live pod: %d Retry-After %q, want 503 with Retry-After: 2", got.Status, got.Header.Get("Retry-After"))
	}
}

func TestServiceBackendRoundRobin(t *testing.T) {
	// "the controller load-balances across them in round-robin order"
	e := start(t, ingress("default", "site", nil, rule("", toService(prefix, "/", "web"))),
		service("default", "web"),
		pod("default", "web-a", map[string]string{"app": "web"}, corev1.PodRunning),
		pod("default", "web-b", map[string]string{"app": "web"}, corev1.PodRunning),
		pod("default", "web-c", map[string]string{"app": "web"}, corev1.PodRunning))
	var got []string
	for i := 0; i < 6; i++ {
		got = append(got, e.get(t, "", "/").Body)
	}
	for i := 3; i < 6; i++ {
		if got[i] != got[i-3] {
			t.Fatalf("answers %q are not round-robin over three pods", got)
		}
	}
	if got[0] == got[1] || got[1] == got[2] || got[0] == got[2] {
		t.Fatalf("answers %q do not visit all three pods in turn", got)
	}
}

func TestServiceBackendByPortNumberOrName(t *testing.T) {
	// "A service backend references a Service in the same namespace by port.number or port.name"
	byName := networkingv1.HTTPIngressPath{Path: "/by-name", PathType: ptr(prefix), Backend: serviceBackendRef("web", 0, "http")}
	byNumber := networkingv1.HTTPIngressPath{Path: "/by-number", PathType: ptr(prefix), Backend: serviceBackendRef("web", 80, "")}
	wrongName := networkingv1.HTTPIngressPath{Path: "/wrong-name", PathType: ptr(prefix), Backend: serviceBackendRef("web", 0, "grpc")}
	wrongNumber := networkingv1.HTTPIngressPath{Path: "/wrong-number", PathType: ptr(prefix), Backend: serviceBackendRef("web", 81, "")}
	otherNS := networkingv1.HTTPIngressPath{Path: "/other-namespace", PathType: ptr(prefix), Backend: serviceBackendRef("elsewhere", 80, "")}
	objs := append([]runtime.Object{ingress("default", "site", nil, rule("", byName, byNumber, wrongName, wrongNumber, otherNS))},
		backends("default", "web")...)
	objs = append(objs, backends("other", "elsewhere")...) // not in the Ingress's namespace
	e := start(t, objs...)
	for path, want := range map[string]int{"/by-name": 200, "/by-number": 200, "/wrong-name": 503, "/wrong-number": 503, "/other-namespace": 503} {
		if got := e.get(t, "", path); got.Status != want {
			t.Errorf("GET %s: %d %q, want %d", path, got.Status, got.Body, want)
		}
	}
}

func TestNamedTargetPortSelectsOnlyPodsThatHaveIt(t *testing.T) {
	// A targetPort naming a containerPort: a pod without that name is no
	// endpoint of the Service.
	svc := service("default", "web", corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromString("web")})
	e := start(t, ingress("default", "site", nil, rule("", toService(prefix, "/", "web"))), svc,
		pod("default", "has-port", map[string]string{"app": "web"}, corev1.PodRunning, corev1.ContainerPort{Name: "web", ContainerPort: 7000}),
		pod("default", "lacks-port", map[string]string{"app": "web"}, corev1.PodRunning, corev1.ContainerPort{Name: "other", ContainerPort: 7000}))
	for i := 0; i < 4; i++ {
		if got := e.get(t, "", "/"); got.Body != "pod default/has-port" {
			t.Fatalf("request %d: %d %q, want pod default/has-port", i, got.Status, got.Body)
		}
	}
}

func TestTerminatingPodGetsNoRequestOnceTheStoreSaysSo(t *testing.T) {
	// "A Service selects Running, non-terminating pods": a pod stops
	// getting requests as soon as the store gives it a deletionTimestamp,
	// not at the routing table's next rebuild, even while its node still
	// serves it (the fake pods answer for it), and its EndpointSlice entry
	// says so: ready false, serving, terminating.
	ready := func(p *corev1.Pod) *corev1.Pod {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		return p
	}
	e := start(t, ingress("default", "site", nil, rule("", toService(prefix, "/", "web"))),
		service("default", "web"),
		ready(pod("default", "web-a", map[string]string{"app": "web"}, corev1.PodRunning)),
		ready(pod("default", "web-b", map[string]string{"app": "web"}, corev1.PodRunning)))
	seen := map[string]bool{}
	for range 4 {
		seen[e.get(t, "", "/").Body] = true
	}
	if !seen["pod default/web-a"] || !seen["pod default/web-b"] {
		t.Fatalf("before: answers from %v, want both pods", seen)
	}
	now := metav1.Now()
	e.store.Update(store.Key{Kind: "Pod", Namespace: "default", Name: "web-a"}, func(o runtime.Object) bool {
		o.(*corev1.Pod).DeletionTimestamp = &now
		return true
	})
	for i := range 8 {
		if got := e.get(t, "", "/"); got.Body != "pod default/web-b" {
			t.Fatalf("request %d after web-a began terminating: %d %q, want pod default/web-b", i, got.Status, got.Body)
		}
	}
	var entries []string
	for _, s := range svcs.NamespaceEndpointSlices(e.store, "default") {
		for _, ep := range s.Endpoints {
			c := ep.Conditions
			entries = append(entries, fmt.Sprintf("%s ready=%v serving=%v terminating=%v", ep.TargetRef.Name, *c.Ready, *c.Serving, *c.Terminating))
		}
	}
	slices.Sort(entries)
	if want := []string{"web-a ready=false serving=true terminating=true", "web-b ready=true serving=true terminating=false"}; !slices.Equal(entries, want) {
		t.Fatalf("EndpointSlice entries %q, want %q", entries, want)
	}
}
