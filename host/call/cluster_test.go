package call

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/pod"
	"github.com/kube32/kube32/host/store"
)

// fixedResolver answers every Service with the same backends.
type fixedResolver []Backend

func (f fixedResolver) Resolve(context.Context, string, string, int) ([]Backend, error) {
	return f, nil
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

func callTarget(t *testing.T, url string) Target {
	t.Helper()
	tg, err := ParseTarget(url, "default")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestClusterPicksRoundRobinAndFiltersHeaders(t *testing.T) {
	c := &Cluster{Node: "n1", Resolver: fixedResolver{{Namespace: "default", Name: "p1", Node: "n1"}, {Namespace: "default", Name: "p2", Node: "n1"}},
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
	c := &Cluster{Node: "n1", Resolver: fixedResolver{{Namespace: "default", Name: "p1", Node: "n1"}}, Local: localPods{"default/p1": true}}
	for _, chain := range [][]string{
		{"default/p1", "default/a"},                                    // the target is already in the chain
		{"1/a", "2/a", "3/a", "4/a", "5/a", "6/a", "7/a", "default/a"}, // the chain has reached 8
	} {
		_, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), pod.Call{From: "default/a", Chain: chain, Method: "GET"})
		wantErrno(t, err, abi.ErrLoop)
	}
	_, err := (&Cluster{Node: "n1", Resolver: fixedResolver{}}).CallService(context.Background(), callTarget(t, "http://svc/"), pod.Call{Method: "GET"})
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
	c := &Cluster{Node: "n1", Resolver: fixedResolver{{Namespace: "default", Name: "far", Node: "n2", Addr: addr}}}
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

func TestStoreResolverSeesChanges(t *testing.T) {
	s := store.New()
	s.Apply(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Status: corev1.NodeStatus{
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.2"}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 7000}}}})
	s.Apply(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}, {Port: 81}}}})
	ready := func(name string, ok bool) *corev1.Pod {
		status := corev1.ConditionFalse
		if ok {
			status = corev1.ConditionTrue
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeName: "w1"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.2",
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}}}
	}
	s.Apply(ready("web-1", true))
	s.Apply(ready("web-2", false))
	r := &StoreResolver{Store: s}
	b, err := r.Resolve(context.Background(), "default", "web", 0)
	if err != nil || len(b) != 1 || b[0].Name != "web-1" || b[0].Addr != "127.0.0.2:7000" || b[0].Node != "w1" {
		t.Fatalf("Resolve = %+v, %v", b, err)
	}
	s.Apply(ready("web-2", true)) // a Pod changed: resolved again
	if b, _ := r.Resolve(context.Background(), "default", "web", 81); len(b) != 2 {
		t.Errorf("after web-2 became ready: %+v", b)
	}
	if _, err := r.Resolve(context.Background(), "default", "web", 82); err == nil {
		t.Error("port 82: want NOENT")
	} else {
		wantErrno(t, err, abi.ErrNoEnt)
	}
	s.Delete(store.Key{Kind: "Service", Namespace: "default", Name: "web"}) // a Service changed
	if _, err := r.Resolve(context.Background(), "default", "web", 0); !errors.Is(err, ErrNoService) {
		t.Errorf("after the Service was deleted: %v, want ErrNoService", err)
	}
}
