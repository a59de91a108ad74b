package kubelet

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/store"
)

// protobufFirst is what client-go's typed clients accept for the built-in
// kinds, and so what a worker asks for.
const protobufFirst = "application/vnd.kubernetes.protobuf,application/json"

// apiOf serves s's API and records the Accept header of every request by
// "METHOD path".
func apiOf(t *testing.T, s *store.Store) (*httptest.Server, func(string) string) {
	served := apiserver.New(apiserver.Config{Store: s})
	var mu sync.Mutex
	accepts := map[string]string{}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accepts[r.Method+" "+r.URL.Path] = r.Header.Get("Accept")
		mu.Unlock()
		served.ServeHTTP(w, r)
	}))
	t.Cleanup(api.Close)
	return api, func(req string) string {
		mu.Lock()
		defer mu.Unlock()
		return accepts[req]
	}
}

// podNames are the names of the pods a Source knows, sorted.
func podNames(src Source) string {
	var names []string
	for _, p := range src.Pods("") {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// A worker lists its node's pods, then follows them through a watch from
// the list's resourceVersion (docs/design.md, "How a worker follows the
// control plane"), in protobuf as client-go's typed clients ask for it.
func TestWorkerListsThenWatchesItsPods(t *testing.T) {
	s := store.New()
	s.Apply(onWorker("default", "a", "a", true))
	elsewhere := onWorker("default", "x", "x", true)
	elsewhere.Spec.NodeName = "w2"
	s.Apply(elsewhere)
	api, accepted := apiOf(t, s)
	src, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := src.Changes(ctx, "w1")
	waitFor := func(want string) {
		t.Helper()
		for podNames(src) != want {
			<-changes
		}
	}
	waitFor("a")
	s.Apply(onWorker("default", "b", "b", true))
	waitFor("a,b")
	if !s.Delete(store.KeyOf(onWorker("default", "a", "a", true))) {
		t.Fatal("pod a was not in the store")
	}
	waitFor("b")
	if got := accepted("GET /api/v1/pods"); got != protobufFirst {
		t.Errorf("the list and watch of pods accepted %q, want %q", got, protobufFirst)
	}
}

// A watch from a resourceVersion older than the server keeps gets the
// 410 Expired Status as an ERROR event, which the worker answers by
// listing again (listAndWatch), as client-go's reflector does.
func TestWorkerWatchFromAnExpiredVersionGets410(t *testing.T) {
	s := store.NewWithHistory(2)
	first := s.Apply(onWorker("default", "a", "a", true))
	for _, name := range []string{"b", "c", "d"} {
		s.Apply(onWorker("default", name, name, true))
	}
	api, _ := apiOf(t, s)
	src, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	version := first.(*corev1.Pod).ResourceVersion
	w, err := src.(*apiSource).client.pods("").Watch(ctx, metav1.ListOptions{ResourceVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e, ok := <-w.ResultChan()
	if !ok {
		t.Fatal("the watch ended without an event")
	}
	if err := apierrors.FromObject(e.Object); e.Type != watch.Error || !apierrors.IsResourceExpired(err) {
		t.Fatalf("watch from resourceVersion %s: %s %v, want an ERROR event with a 410 Expired Status", version, e.Type, e.Object)
	}
}

// A worker's writes reach the API server: it registers its Node, and
// registering again updates it; it writes a pod's status and deletes the
// pod with its UID as precondition.
func TestWorkerWritesThroughTheAPI(t *testing.T) {
	s := store.New()
	p := s.Apply(onWorker("default", "a", "a", true)).(*corev1.Pod)
	api, accepted := apiOf(t, s)
	src, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1"},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}}}
		if err := src.RegisterNode(ctx, n); err != nil {
			t.Fatalf("registering w1 at %s: %v", ip, err)
		}
		got, ok := s.Get(store.KeyOf(n))
		if !ok || got.(*corev1.Node).Status.Addresses[0].Address != ip {
			t.Fatalf("registered w1 at %s; the store has %v", ip, got)
		}
	}
	if got := accepted("PUT /api/v1/nodes/w1/status"); got != protobufFirst {
		t.Errorf("the Node's status update accepted %q, want %q", got, protobufFirst)
	}
	err = src.UpdatePodStatus(ctx, "default", "a", p.UID, p.Generation, func(p *corev1.Pod) {
		p.Status.Message = "written by w1"
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(store.KeyOf(p)); got.(*corev1.Pod).Status.Message != "written by w1" {
		t.Fatalf("pod status after the update: %+v", got.(*corev1.Pod).Status)
	}
	if err := src.DeletePod(ctx, "default", "a", "some-other-uid"); !apierrors.IsConflict(err) {
		t.Errorf("deleting with another pod's UID: %v, want a 409 Conflict", err)
	}
	if err := src.DeletePod(ctx, "default", "a", p.UID); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(store.KeyOf(p)); ok {
		t.Error("the pod is still in the store after the delete")
	}
}
