package call

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// objects returns the Objects of a store in which the Service svc of
// default (port 80) selects one ready pod per backend b, on node b.Node,
// whose Node reports b.Addr as its pod HTTP server.
func objects(t *testing.T, backends ...service.Backend) service.Objects {
	t.Helper()
	s := store.New()
	s.Apply(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "svc"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "svc"}, Ports: []corev1.ServicePort{{Port: 80}}}})
	for _, b := range backends {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: b.Node}}
		if b.Addr != "" {
			host, port, err := net.SplitHostPort(b.Addr)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.Atoi(port)
			node.Status = corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: host}},
				DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(n)}}}
		}
		s.Apply(node)
		s.Apply(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: b.Name, Labels: map[string]string{"app": "svc"}},
			Spec: corev1.PodSpec{NodeName: b.Node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1",
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}})
	}
	return service.StoreObjects(s)
}

// localPods serves every pod of this node with a handler that names it.
type localPods map[string]bool

func (l localPods) Handler(namespace, name string) (http.Handler, bool) {
	if !l[namespace+"/"+name] {
		return nil, false
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Pod", name)
		io.WriteString(w, name+" chain="+r.Header.Get(abi.HeaderCallChain)+" cookie="+r.Header.Get("Cookie")+" auth="+r.Header.Get("Authorization"))
	}), true
}

func callTarget(t *testing.T, url string) outbound.Target {
	t.Helper()
	tg, err := outbound.ParseTarget(url, "default")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestClusterPicksRoundRobinAndFiltersHeaders(t *testing.T) {
	c := &Cluster{Node: "n1", Policy: noPolicies(t), Objects: objects(t, service.Backend{Namespace: "default", Name: "p1", Node: "n1"}, service.Backend{Namespace: "default", Name: "p2", Node: "n1"}),
		Local: localPods{"default/p1": true, "default/p2": true}}
	call := pod.Call{From: "default/a", Chain: []string{"x/y", "default/a"}, Method: "GET", RespCap: 100,
		Header: http.Header{"Cookie": {"c=1"}, "Authorization": {"Bearer t"}}}
	var got []string
	for i := 0; i < 4; i++ {
		res, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), call)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(res.Body))
	}
	want := "p1 chain=x/y,default/a cookie=c=1 auth=|p2 chain=x/y,default/a cookie=c=1 auth=|p1 chain=x/y,default/a cookie=c=1 auth=|p2 chain=x/y,default/a cookie=c=1 auth="
	if strings.Join(got, "|") != want {
		t.Errorf("answers\n  %s\nwant\n  %s", strings.Join(got, "|"), want)
	}
}

func TestClusterRefusesLoops(t *testing.T) {
	c := &Cluster{Node: "n1", Policy: noPolicies(t), Objects: objects(t, service.Backend{Namespace: "default", Name: "p1", Node: "n1"}), Local: localPods{"default/p1": true}}
	for _, chain := range [][]string{
		{"default/p1", "default/a"},                                    // the target is already in the chain
		{"1/a", "2/a", "3/a", "4/a", "5/a", "6/a", "7/a", "default/a"}, // the chain has reached 8
	} {
		_, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), pod.Call{From: "default/a", Chain: chain, Method: "GET"})
		wantErrno(t, err, abi.ErrLoop)
	}
	_, err := (&Cluster{Node: "n1", Policy: noPolicies(t), Objects: objects(t)}).CallService(context.Background(), callTarget(t, "http://svc/"), pod.Call{Method: "GET"})
	wantErrno(t, err, abi.ErrNoEnt)
}

func TestClusterCallsOtherNodesWithPodHeader(t *testing.T) {
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		w.Header().Set("X-Pod", "far")
		io.WriteString(w, strings.Repeat("x", 50))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c := &Cluster{Node: "n1", Policy: noPolicies(t), Objects: objects(t, service.Backend{Namespace: "default", Name: "far", Node: "n2", Addr: addr})}
	res, err := c.CallService(context.Background(), callTarget(t, "http://svc/p?q=1"), pod.Call{From: "default/a", Chain: []string{"default/a"},
		Method: "GET", RespCap: 10, Header: http.Header{"X-Request-Id": {"r1"}, "X-Secret": {"s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || !res.Truncated || string(res.Body) != "xxxxxxxxxx" || res.Header.Get("X-Pod") != "far" {
		t.Errorf("result %+v", res)
	}
	if seen.Get(abi.HeaderPod) != "default/far" || seen.Get(abi.HeaderCallChain) != "default/a" || seen.Get("X-Request-Id") != "r1" ||
		seen.Get("X-Secret") != "" || seen.Get("User-Agent") != "" {
		t.Errorf("the target node saw %v", seen)
	}
}

func TestClusterCallsOnlyReadyPods(t *testing.T) {
	// Calls go to ready pods; a Service whose running pods are all not
	// ready is K32_ERR_NOENT (the Ingress would still route to them).
	s := store.New()
	s.Apply(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "svc"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "svc"}, Ports: []corev1.ServicePort{{Port: 80}}}})
	s.Apply(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p1", Labels: map[string]string{"app": "svc"}},
		Spec: corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}}})
	c := &Cluster{Node: "n1", Policy: noPolicies(t), Objects: service.StoreObjects(s), Local: localPods{"default/p1": true}}
	_, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), pod.Call{From: "default/a", Method: "GET"})
	wantErrno(t, err, abi.ErrNoEnt)
	_, err = c.CallService(context.Background(), callTarget(t, "http://svc:81/"), pod.Call{From: "default/a", Method: "GET"})
	wantErrno(t, err, abi.ErrNoEnt) // no such port
}

// A node's edge fails closed: a Cluster built without the node's Policy
// calls no Service (docs/networkpolicy.md).
func TestClusterWithoutPolicyRefusesEveryCall(t *testing.T) {
	c := &Cluster{Node: "n1", Objects: objects(t, service.Backend{Namespace: "default", Name: "p1", Node: "n1"}), Local: localPods{"default/p1": true}}
	_, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), pod.Call{From: "default/a", Method: "GET", RespCap: 10})
	wantErrno(t, err, abi.ErrPerm)
}

// A pod whose node says it does not run there (gone, or terminating:
// abi.HeaderPodMissing, as the pod port answers), or that this node no
// longer runs, is skipped for the next ready pod: the call is answered, by
// another pod. A pod's own 404 is its answer.
func TestClusterSkipsAPodItsNodeNoLongerRuns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(abi.HeaderPod)
		if id == "default/far-gone" {
			w.Header().Set(abi.HeaderPodMissing, id)
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNotFound) // the pod's own answer
		io.WriteString(w, "far 404")
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c := &Cluster{Node: "n1", Policy: noPolicies(t), Local: localPods{"default/near": true},
		Objects: objects(t, service.Backend{Namespace: "default", Name: "far-gone", Node: "n2", Addr: addr},
			service.Backend{Namespace: "default", Name: "near", Node: "n1"},
			service.Backend{Namespace: "default", Name: "near-gone", Node: "n1"})}
	call := pod.Call{From: "default/a", Chain: []string{"default/a"}, Method: "GET", RespCap: 100}
	for i := range 6 {
		res, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), call)
		if err != nil || res.Status != 200 || !strings.HasPrefix(string(res.Body), "near ") {
			t.Fatalf("call %d: %+v, %v; want the answer of pod near", i, res, err)
		}
	}
	c.Objects = objects(t, service.Backend{Namespace: "default", Name: "far", Node: "n2", Addr: addr})
	res, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), call)
	if err != nil || res.Status != http.StatusNotFound || string(res.Body) != "far 404" {
		t.Fatalf("a pod's own 404: %+v, %v", res, err)
	}
	c.Objects = objects(t, service.Backend{Namespace: "default", Name: "near-gone", Node: "n1"})
	_, err = c.CallService(context.Background(), callTarget(t, "http://svc/"), call)
	wantErrno(t, err, abi.ErrNoEnt) // no pod left
}
