package apiserver_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// watchList sets client-go's WatchListClient feature gate (on by default in
// this client-go): on, a reflector fills its cache with a
// sendInitialEvents watch; off, with a list and then a watch.
type watchList struct {
	clientfeatures.Gates
	on bool
}

func (g watchList) Enabled(f clientfeatures.Feature) bool {
	if f == clientfeatures.WatchListClient {
		return g.on
	}
	return g.Gates.Enabled(f)
}

// watchGate holds the watch requests that arrive while it is closed, and
// counts how the informers fill their caches and whether the server
// answered a watch with 410.
type watchGate struct {
	next      http.Handler
	mu        sync.Mutex
	closed    chan struct{} // nil when open
	held      int
	expired   int
	streams   int // watches with sendInitialEvents=true (watch-list)
	versioned int // lists with a resourceVersion: a reflector's, not the test's
}

func (g *watchGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("watch") != "true" {
		if q.Has("resourceVersion") {
			g.mu.Lock()
			g.versioned++
			g.mu.Unlock()
		}
		g.next.ServeHTTP(w, r)
		return
	}
	g.mu.Lock()
	if q.Get("sendInitialEvents") == "true" {
		g.streams++
	}
	wait := g.closed
	if wait != nil {
		g.held++
	}
	g.mu.Unlock()
	if wait != nil {
		<-wait
	}
	g.next.ServeHTTP(&expiryRecorder{ResponseWriter: w, gate: g}, r)
}

func (g *watchGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed, g.held = make(chan struct{}), 0
}

func (g *watchGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.closed)
	g.closed = nil
}

func (g *watchGate) count(n *int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return *n
}

// expiryRecorder counts the watch streams that carry a 410 Status.
type expiryRecorder struct {
	http.ResponseWriter
	gate *watchGate
}

func (e *expiryRecorder) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"type":"ERROR"`)) && bytes.Contains(p, []byte(`"code":410`)) {
		e.gate.mu.Lock()
		e.gate.expired++
		e.gate.mu.Unlock()
	}
	return e.ResponseWriter.Write(p)
}

func (e *expiryRecorder) Flush() { e.ResponseWriter.(http.Flusher).Flush() }

// TestSharedInformerThroughChurnAndAnExpiredWatch runs client-go's shared
// informers on Pods and Services while pods are created, changed and
// deleted, then breaks their watches and churns past the store's history
// before they may resume, so that the resume gets 410 and they list again;
// their caches must end equal, key for key and resourceVersion for
// resourceVersion, to a fresh list. Both ways a reflector fills its cache
// are run: a watch-list stream (the default) and a list then a watch.
func TestSharedInformerThroughChurnAndAnExpiredWatch(t *testing.T) {
	for _, mode := range []watchList{{on: true}, {on: false}} {
		t.Run(fmt.Sprintf("WatchListClient=%v", mode.on), func(t *testing.T) {
			saved := clientfeatures.FeatureGates()
			mode.Gates = saved
			clientfeatures.ReplaceFeatureGates(mode)
			defer clientfeatures.ReplaceFeatureGates(saved)
			informerThroughChurn(t, mode.on)
		})
	}
}

func informerThroughChurn(t *testing.T, watchList bool) {
	const history = 30
	s := store.NewWithHistory(history)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	admission.Admit(ns)
	s.Apply(ns)
	gate := &watchGate{next: apiserver.New(apiserver.Config{Store: s})}
	srv := httptest.NewServer(gate)
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: 1000, Burst: 1000}) // churn without client-side throttling
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pods, services := client.CoreV1().Pods("default"), client.CoreV1().Services("default")
	for i := range 5 {
		if _, err := pods.Create(ctx, testPod(fmt.Sprintf("before-%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := services.Create(ctx, testService("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	factory := informers.NewSharedInformerFactory(client, 0)
	podInformer, serviceInformer := factory.Core().V1().Pods().Informer(), factory.Core().V1().Services().Informer()
	stop := make(chan struct{})
	factory.Start(stop)
	defer factory.Shutdown() // after close(stop), which it waits for
	defer close(stop)
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("the %v informer did not sync", typ)
		}
	}

	// Churn while the watches run: more changes than the history keeps,
	// which the live watches carry all the same.
	churn(t, ctx, pods, "live", 3*history)
	if _, err := services.Create(ctx, testService("api"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sameAsList(t, ctx, client, podInformer, serviceInformer)

	// Hold the watches that resume after a broken connection, churn past
	// the history, then let them resume from their old resourceVersions.
	gate.close()
	srv.CloseClientConnections()
	testenv.Eventually(t, "both informers to try to resume their watches", func() bool { return gate.count(&gate.held) >= 2 })
	churn(t, ctx, pods, "held", 2*history)
	if err := services.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	streams, lists := gate.count(&gate.streams), gate.count(&gate.versioned)
	gate.open()
	testenv.Eventually(t, "a resumed watch to get 410 Gone", func() bool { return gate.count(&gate.expired) >= 1 })
	sameAsList(t, ctx, client, podInformer, serviceInformer)
	// The caches were filled again the way the mode says.
	if watchList {
		if gate.count(&gate.streams) <= streams || gate.count(&gate.versioned) != 0 {
			t.Errorf("watch-list: %d watch-list streams before the 410, %d after, %d lists; want more streams and no list", streams, gate.count(&gate.streams), gate.count(&gate.versioned))
		}
	} else if gate.count(&gate.versioned) <= lists || gate.count(&gate.streams) != 0 {
		t.Errorf("list and watch: %d lists before the 410, %d after, %d watch-list streams; want more lists and no stream", lists, gate.count(&gate.versioned), gate.count(&gate.streams))
	}

	// And the informers follow changes after their relist.
	churn(t, ctx, pods, "after", 10)
	sameAsList(t, ctx, client, podInformer, serviceInformer)
}

// churn creates n pods named prefix-i, changes a label of every other one
// and deletes every third.
func churn(t *testing.T, ctx context.Context, pods interface {
	Create(context.Context, *corev1.Pod, metav1.CreateOptions) (*corev1.Pod, error)
	Update(context.Context, *corev1.Pod, metav1.UpdateOptions) (*corev1.Pod, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}, prefix string, n int) {
	t.Helper()
	for i := range n {
		p, err := pods.Create(ctx, testPod(fmt.Sprintf("%s-%d", prefix, i)), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			p.Labels["churn"] = "changed"
			if _, err := pods.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if i%3 == 0 {
			if err := pods.Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// sameAsList waits until each informer's cache holds exactly what a fresh
// list of its kind holds, with the same resourceVersions.
func sameAsList(t *testing.T, ctx context.Context, client *kubernetes.Clientset, podInformer, serviceInformer cache.SharedIndexInformer) {
	t.Helper()
	for _, c := range []struct {
		kind     string
		informer cache.SharedIndexInformer
		list     func() (runtime.Object, error)
	}{
		{"pods", podInformer, func() (runtime.Object, error) { return client.CoreV1().Pods("").List(ctx, metav1.ListOptions{}) }},
		{"services", serviceInformer, func() (runtime.Object, error) { return client.CoreV1().Services("").List(ctx, metav1.ListOptions{}) }},
	} {
		var got, want string
		testenv.Eventually(t, "the "+c.kind+" informer's cache to equal a fresh list", func() bool {
			list, err := c.list()
			if err != nil {
				t.Fatal(err)
			}
			items, err := meta.ExtractList(list)
			if err != nil {
				t.Fatal(err)
			}
			var listed []metav1.Object
			for _, o := range items {
				listed = append(listed, o.(metav1.Object))
			}
			want = versions(listed)
			var cached []metav1.Object
			for _, o := range c.informer.GetStore().List() {
				cached = append(cached, o.(metav1.Object))
			}
			got = versions(cached)
			return got == want
		})
		if got != want {
			t.Fatalf("%s: informer cache\n%s\nfresh list\n%s", c.kind, got, want)
		}
	}
}

// versions lists namespace/name=resourceVersion of objs, sorted.
func versions(objs []metav1.Object) string {
	var lines []string
	for _, o := range objs {
		lines = append(lines, o.GetNamespace()+"/"+o.GetName()+"="+o.GetResourceVersion())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func testService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": name},
			Ports:    []corev1.ServicePort{{Port: 80}},
		},
	}
}

// TestWatchBookmarks: a watch that allows bookmarks gets one before its
// timeout at the version it has read up to; a watch-list stream ends its
// initial events with the bookmark client-go waits for.
func TestWatchBookmarks(t *testing.T) {
	_, client := bareServer(t, store.New(), "")
	ctx := context.Background()
	pods := client.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, testPod("a"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	timeout := int64(3) // the bookmark comes 2 s before it
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true, TimeoutSeconds: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if e := nextEvent(t, w); e.Type != watch.Bookmark || e.Object.(*corev1.Pod).ResourceVersion != list.ResourceVersion {
		t.Fatalf("first event %s %v, want a BOOKMARK at %s", e.Type, e.Object, list.ResourceVersion)
	}

	yes := true
	wl, err := pods.Watch(ctx, metav1.ListOptions{SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer wl.Stop()
	if e := nextEvent(t, wl); e.Type != watch.Added || e.Object.(*corev1.Pod).Name != "a" {
		t.Fatalf("first watch-list event %s %v, want ADDED a", e.Type, e.Object)
	}
	e := nextEvent(t, wl)
	if p, ok := e.Object.(*corev1.Pod); e.Type != watch.Bookmark || !ok || p.Annotations[metav1.InitialEventsAnnotationKey] != "true" || p.ResourceVersion != list.ResourceVersion {
		t.Fatalf("second watch-list event %s %v, want the initial-events-end BOOKMARK at %s", e.Type, e.Object, list.ResourceVersion)
	}
}
