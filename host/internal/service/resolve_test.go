package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/host/internal/store"
)

// resolveIn resolves default/web on ref from a store holding objs.
func resolveIn(t *testing.T, ref PortRef, objs ...runtime.Object) ([]Backend, error) {
	t.Helper()
	s := store.New()
	for _, o := range objs {
		s.Apply(o)
	}
	return Resolve(context.Background(), StoreObjects(s), "default", "web", ref)
}

// backendList prints backends as "name:port[ ready]@node addr", sorted as Resolve returns them.
func backendList(bs []Backend) string {
	var out []string
	for _, b := range bs {
		s := fmt.Sprintf("%s:%d", b.Name, b.Port)
		if b.Ready {
			s += " ready"
		}
		out = append(out, s+"@"+b.Node+" "+b.Addr)
	}
	return strings.Join(out, ", ")
}

func node(name, ip string, port int32) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: port}}}}
}

func TestResolveTargetPortByName(t *testing.T) {
	// "targetPort ... is either a port number or a containerPort name from the pod spec"
	got, err := resolveIn(t, PortRef{Number: 80},
		svc("web", "web", port("http", 80, intstr.FromString("web"))),
		runningPod("a", "web", nodeIP, true, cport("web", 7001)),
		runningPod("b", "web", nodeIP, true, cport("other", 7002))) // lacks the name: no backend
	if want := "a:7001 ready@n1 "; err != nil || backendList(got) != want {
		t.Errorf("Resolve = %q, %v; want %q", backendList(got), err, want)
	}
}

func TestResolveTargetPortByNumber(t *testing.T) {
	got, err := resolveIn(t, PortRef{Number: 80},
		svc("web", "web", port("http", 80, intstr.FromInt32(9000))),
		runningPod("a", "web", nodeIP, true))
	if want := "a:9000 ready@n1 "; err != nil || backendList(got) != want {
		t.Errorf("Resolve = %q, %v; want %q", backendList(got), err, want)
	}
}

func TestResolveTargetPortDefaultsToPort(t *testing.T) {
	// "Omitting targetPort defaults it to port."
	got, err := resolveIn(t, PortRef{Number: 8080},
		svc("web", "web", port("http", 8080, intstr.IntOrString{})),
		runningPod("a", "web", nodeIP, true))
	if want := "a:8080 ready@n1 "; err != nil || backendList(got) != want {
		t.Errorf("Resolve = %q, %v; want %q", backendList(got), err, want)
	}
}

func TestResolveServicePortByNameByNumberOrFirst(t *testing.T) {
	web := svc("web", "web", port("http", 80, intstr.FromInt32(7000)), port("admin", 81, intstr.FromInt32(7100)))
	for _, tt := range []struct {
		ref  PortRef
		want int32
	}{
		{PortRef{Name: "admin"}, 7100},
		{PortRef{Number: 81}, 7100},
		{PortRef{Number: 80}, 7000},
		{PortRef{}, 7000}, // "A Service's port defaults to its first port"
	} {
		got, err := resolveIn(t, tt.ref, web, runningPod("a", "web", nodeIP, true))
		if err != nil || len(got) != 1 || got[0].Port != tt.want {
			t.Errorf("%+v: %q, %v; want target port %d", tt.ref, backendList(got), err, tt.want)
		}
	}
}

func TestResolveReturnsOnlyRunningPodsWithReadiness(t *testing.T) {
	// "A Service selects Running, non-terminating pods in the same
	// namespace whose labels match spec.selector"; calls take the Ready
	// ones, the Ingress all of them.
	other := runningPod("other-namespace", "web", nodeIP, true)
	other.Namespace = "other"
	got, err := resolveIn(t, PortRef{},
		svc("web", "web", port("http", 80, intstr.FromInt32(7000))),
		runningPod("ready", "web", nodeIP, true),
		runningPod("not-ready", "web", nodeIP, false),
		withPhase(runningPod("pending", "web", nodeIP, true), corev1.PodPending),
		withPhase(runningPod("failed", "web", nodeIP, false), corev1.PodFailed),
		withPhase(runningPod("succeeded", "web", nodeIP, false), corev1.PodSucceeded),
		terminating(runningPod("terminating", "web", nodeIP, true)),
		runningPod("other-labels", "api", nodeIP, true),
		other)
	if want := "not-ready:7000@n1 , ready:7000 ready@n1 "; err != nil || backendList(got) != want {
		t.Errorf("Resolve = %q, %v; want %q", backendList(got), err, want)
	}
}

func TestResolveLooksUpTheNodeAddress(t *testing.T) {
	// A backend is reached at its node's pod HTTP server, "<InternalIP>:<kubelet endpoint port>".
	onW1 := runningPod("a", "web", "127.0.0.2", true)
	onW1.Spec.NodeName = "w1"
	got, err := resolveIn(t, PortRef{}, svc("web", "web", port("http", 80, intstr.FromInt32(7000))), onW1,
		runningPod("b", "web", nodeIP, true), // on n1, which has no Node object
		node("w1", "127.0.0.2", 7000))
	if want := "a:7000 ready@w1 127.0.0.2:7000, b:7000 ready@n1 "; err != nil || backendList(got) != want {
		t.Errorf("Resolve = %q, %v; want %q", backendList(got), err, want)
	}
	if got[0].IP != "127.0.0.2" {
		t.Errorf("IP %q, want the pod's IP", got[0].IP)
	}
}

func TestResolveWithoutServicePortOrPod(t *testing.T) {
	web := svc("web", "web", port("http", 80, intstr.FromInt32(7000)))
	if _, err := resolveIn(t, PortRef{}); !errors.Is(err, ErrNoService) {
		t.Errorf("no Service: %v, want ErrNoService", err)
	}
	if _, err := resolveIn(t, PortRef{Number: 82}, web); !errors.Is(err, ErrNoPort) || !strings.Contains(err.Error(), "has no port 82") {
		t.Errorf("no port 82: %v, want ErrNoPort", err)
	}
	if _, err := resolveIn(t, PortRef{Name: "grpc"}, web); !errors.Is(err, ErrNoPort) || !strings.Contains(err.Error(), `has no port named "grpc"`) {
		t.Errorf("no port grpc: %v, want ErrNoPort", err)
	}
	if got, err := resolveIn(t, PortRef{}, web, runningPod("a", "api", nodeIP, true)); err != nil || len(got) != 0 {
		t.Errorf("no pod selected: %q, %v; want an empty list", backendList(got), err)
	}
	noSelector := svc("web", "", port("http", 80, intstr.FromInt32(7000)))
	if got, err := resolveIn(t, PortRef{}, noSelector, runningPod("a", "web", nodeIP, true)); err != nil || len(got) != 0 {
		t.Errorf("no selector: %q, %v; want an empty list", backendList(got), err)
	}
}

func TestStoreObjectsSeeChanges(t *testing.T) {
	// "The control plane resolves Services from the object store and
	// invalidates its cache when a Service or Pod changes."
	s := store.New()
	s.Apply(svc("web", "web", port("http", 80, intstr.FromInt32(7000))))
	s.Apply(runningPod("a", "web", nodeIP, true))
	objs := StoreObjects(s)
	resolve := func() string {
		got, err := Resolve(context.Background(), objs, "default", "web", PortRef{})
		if err != nil {
			return err.Error()
		}
		return backendList(got)
	}
	if got, want := resolve(), "a:7000 ready@n1 "; got != want {
		t.Fatalf("first: %q, want %q", got, want)
	}
	s.Apply(runningPod("b", "web", nodeIP, false))
	if got, want := resolve(), "a:7000 ready@n1 , b:7000@n1 "; got != want {
		t.Errorf("after a pod was added: %q, want %q", got, want)
	}
	s.Apply(node("n1", "127.0.0.1", 7000))
	if got, want := resolve(), "a:7000 ready@n1 127.0.0.1:7000, b:7000@n1 127.0.0.1:7000"; got != want {
		t.Errorf("after the Node was added: %q, want %q", got, want)
	}
	s.Delete(store.Key{Kind: "Service", Namespace: "default", Name: "web"})
	if got := resolve(); !strings.Contains(got, ErrNoService.Error()) {
		t.Errorf("after the Service was deleted: %q, want ErrNoService", got)
	}
}

func TestRoundRobinVisitsEachInTurn(t *testing.T) {
	// "the controller load-balances across them in round-robin order"
	var r RoundRobin
	var got []int
	for i := 0; i < 7; i++ {
		got = append(got, r.Next(3))
	}
	if fmt.Sprint(got) != "[0 1 2 0 1 2 0]" {
		t.Errorf("Next(3) gave %v", got)
	}
}

func TestResolveDropsAPodOnceItIsTerminating(t *testing.T) {
	// "A Service selects Running, non-terminating pods": a pod that gets a
	// deletionTimestamp (a graceful deletion) is no backend from the
	// store's change on, though it still runs; its EndpointSlice entry is
	// ready false, terminating true.
	s := store.New()
	s.Apply(svc("web", "web", port("http", 80, intstr.FromInt32(80))))
	s.Apply(runningPod("a", "web", nodeIP, true))
	s.Apply(runningPod("b", "web", nodeIP, true))
	objs := StoreObjects(s)
	resolve := func() string {
		got, err := Resolve(context.Background(), objs, "default", "web", PortRef{Number: 80})
		if err != nil {
			t.Fatal(err)
		}
		return backendList(got)
	}
	if got, want := resolve(), "a:80 ready@n1 , b:80 ready@n1 "; got != want {
		t.Fatalf("before: %q, want %q", got, want)
	}
	s.Update(store.Key{Kind: "Pod", Namespace: "default", Name: "a"}, func(o runtime.Object) bool {
		terminating(o.(*corev1.Pod))
		return true
	})
	if got, want := resolve(), "b:80 ready@n1 "; got != want {
		t.Fatalf("once a is terminating: %q, want %q", got, want)
	}
	if got, want := sliceSummary(NamespaceEndpointSlices(s, "default")), "http=80: 127.0.0.1/a(false,true,true),127.0.0.1/b(true,true,false)"; got != want {
		t.Fatalf("EndpointSlices %q, want %q", got, want)
	}
}
