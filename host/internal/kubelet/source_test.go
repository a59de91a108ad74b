package kubelet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// onWorker is a Running pod of relay app on node w1 (127.0.0.2), Ready or not.
func onWorker(namespace, name, app string, ready bool) *corev1.Pod {
	p := relayPod(namespace, name)
	p.Labels["app"] = app
	p.Spec.NodeName = "w1"
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "web", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.2",
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}}
	return p
}

// A worker resolves a Service from the API server as the control plane
// resolves it from its store: the same pods, target ports and addresses.
func TestWorkerAndControlPlaneResolveServicesAlike(t *testing.T) {
	s := store.New()
	s.Apply(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Status: corev1.NodeStatus{
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.2"}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 7000}}}})
	s.Apply(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, TargetPort: intstr.FromString("web")},
			{Name: "alt", Port: 81, TargetPort: intstr.FromInt32(8081)},
		}}})
	s.Apply(onWorker("default", "web-1", "web", true))
	s.Apply(onWorker("default", "web-2", "web", false))
	lacking := onWorker("default", "web-3", "web", true)
	lacking.Spec.Containers[0].Ports = nil // no containerPort "web": no backend of port http
	s.Apply(lacking)
	api := httptest.NewServer(apiserver.New(apiserver.Config{Store: s}))
	defer api.Close()
	worker, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []service.PortRef{{}, {Number: 80}, {Number: 81}, {Name: "alt"}} {
		want, err := service.Resolve(context.Background(), StoreSource(s), "default", "web", port)
		if err != nil {
			t.Fatal(err)
		}
		got, err := service.Resolve(context.Background(), worker, "default", "web", port)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("port %+v: the worker resolves\n  %v\nthe control plane\n  %v", port, got, want)
		}
		if len(want) < 2 || want[0].Addr != "127.0.0.2:7000" {
			t.Errorf("port %+v: %v, want web-1 and web-2 at 127.0.0.2:7000", port, want)
		}
	}
	if _, err := service.Resolve(context.Background(), worker, "default", "ghost", service.PortRef{}); !errors.Is(err, service.ErrNoService) {
		t.Errorf("no such Service: %v, want ErrNoService", err)
	}
}

// "A worker that has not loaded the policies of a pod's namespace denies
// the pod's calls": also when the API server fails to list them, with no
// policy at all in the cluster. The calls get K32_ERR_PERM, the node logs
// the [NETPOL] line.
func TestWorkerThatCannotListPoliciesDeniesCalls(t *testing.T) {
	s := store.New()
	s.Apply(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	s.Apply(relayService("default", "b", "b"))
	s.Apply(onWorker("default", "b", "b", true))
	served := apiserver.New(apiserver.Config{Store: s})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/networkpolicies") {
			http.Error(w, "storage unavailable", http.StatusInternalServerError)
			return
		}
		served.ServeHTTP(w, r)
	}))
	defer api.Close()
	source, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	log := &nodeLog{}
	k := newKubelet(t, Config{NodeName: "w1", NodeIP: "127.0.0.2", Source: source, Log: log.add})
	a := relayPod("default", "a")
	k.syncPolicies(context.Background(), map[store.Key]*corev1.Pod{store.KeyOf(a): a})

	for _, url := range []string{"http://127.0.0.9:8000/", "http://b/"} {
		_, err := k.Caller().HTTPCall(context.Background(), pod.Call{From: "default/a", Chain: []string{"default/a"}, Method: "GET", URL: url, RespCap: 16})
		var code abi.Errno
		if !errors.As(err, &code) || code != abi.ErrPerm {
			t.Errorf("call %s: %v, want K32_ERR_PERM", url, err)
		}
	}
	want := "[default/a] [NETPOL] default/a -> 127.0.0.9:8000 denied: the node has not loaded the NetworkPolicies of namespace default: " +
		"listing the NetworkPolicies of namespace default:"
	if !strings.HasPrefix(log.String(), want) {
		t.Errorf("node log:\n%s\nwant a line starting\n%s", log, want)
	}
}
