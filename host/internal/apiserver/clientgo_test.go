package apiserver_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/store"
)

// bareServer is the API server over a store with the default namespace and
// no kubelet: nothing runs, which is all the REST tests need.
func bareServer(t *testing.T, s *store.Store, token string) (*httptest.Server, *kubernetes.Clientset) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	admission.Admit(ns)
	s.Apply(ns)
	srv := httptest.NewServer(apiserver.New(apiserver.Config{Store: s, Token: token}))
	t.Cleanup(srv.Close)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, BearerToken: token})
	if err != nil {
		t.Fatal(err)
	}
	return srv, client
}

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "wasm://embedded/echo"}}},
	}
}

func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

func TestClientGoWatchAndOptimisticConcurrency(t *testing.T) {
	_, client := bareServer(t, store.New(), "")
	ctx := context.Background()
	pods := client.CoreV1().Pods("default")

	list, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	created, err := pods.Create(ctx, testPod("a"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.Generation != 1 || created.CreationTimestamp.IsZero() {
		t.Errorf("created pod metadata %+v lacks uid, resourceVersion, generation or creationTimestamp", created.ObjectMeta)
	}
	if e := nextEvent(t, w); e.Type != watch.Added || e.Object.(*corev1.Pod).Name != "a" {
		t.Fatalf("first event %s %v", e.Type, e.Object)
	}

	// A write based on the current resourceVersion succeeds; one based on
	// an older one is a 409 Conflict that changes nothing.
	fresh := created.DeepCopy()
	fresh.Labels["v"] = "1"
	updated, err := pods.Update(ctx, fresh, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := nextEvent(t, w); e.Type != watch.Modified || e.Object.(*corev1.Pod).Labels["v"] != "1" {
		t.Fatalf("second event %s %v", e.Type, e.Object)
	}
	stale := created.DeepCopy()
	stale.Labels["v"] = "stale"
	_, err = pods.Update(ctx, stale, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want 409 Conflict", err)
	}
	if got, _ := pods.Get(ctx, "a", metav1.GetOptions{}); got.ResourceVersion != updated.ResourceVersion || got.Labels["v"] != "1" {
		t.Errorf("after the conflict: rv %s labels %v, want unchanged", got.ResourceVersion, got.Labels)
	}

	// A label change leaves the generation; a spec change bumps it.
	if updated.Generation != 1 {
		t.Errorf("generation after a label change = %d, want 1", updated.Generation)
	}
	updated.Spec.Containers[0].Image = "wasm://embedded/other"
	respec, err := pods.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil || respec.Generation != 2 {
		t.Fatalf("spec change: %v, generation %d, want 2", err, respec.Generation)
	}
	nextEvent(t, w)

	// The status subresource changes the status only; the main resource
	// everything but the status.
	for _, step := range []struct {
		name      string
		update    func(context.Context, *corev1.Pod, metav1.UpdateOptions) (*corev1.Pod, error)
		phase     corev1.PodPhase // what the step writes
		via       string
		wantPhase corev1.PodPhase // what the pod has afterwards
		wantVia   string
	}{
		{"UpdateStatus", pods.UpdateStatus, corev1.PodRunning, "status", corev1.PodRunning, ""},
		{"Update", pods.Update, corev1.PodFailed, "main", corev1.PodRunning, "main"},
	} {
		next := respec.DeepCopy()
		next.Status.Phase = step.phase
		next.Labels["via"] = step.via
		after, err := step.update(ctx, next, metav1.UpdateOptions{})
		if err != nil || after.Status.Phase != step.wantPhase || after.Labels["via"] != step.wantVia {
			t.Fatalf("%s: %v, phase %q, labels %v", step.name, err, after.Status.Phase, after.Labels)
		}
		nextEvent(t, w)
		respec = after
	}

	// The pod leaving the selector is a DELETED event for this watch.
	respec.Labels["app"] = "api"
	if _, err := pods.Update(ctx, respec, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if e := nextEvent(t, w); e.Type != watch.Deleted {
		t.Fatalf("pod leaving the selector: %s, want DELETED", e.Type)
	}

	// A watch resumes from a resourceVersion: it replays what followed it.
	resumed, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Stop()
	if e := nextEvent(t, resumed); e.Type != watch.Modified || e.Object.(*corev1.Pod).ResourceVersion != updated.ResourceVersion {
		t.Fatalf("resumed watch: first event %s rv %s, want MODIFIED rv %s", e.Type, e.Object.(*corev1.Pod).ResourceVersion, updated.ResourceVersion)
	}

	// Server-side dry runs store nothing.
	if _, err := pods.Create(ctx, testPod("dry"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a dry-run create stored the pod: %v", err)
	}
	if err := pods.Delete(ctx, "a", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "a", metav1.GetOptions{}); err != nil {
		t.Errorf("a dry-run delete removed the pod: %v", err)
	}

	// Unbound pods go at once; deleting answers the object.
	if err := pods.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want 404", err)
	}
}

func TestWatchTooOldIsGone(t *testing.T) {
	s := store.NewWithHistory(2)
	_, client := bareServer(t, s, "")
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c", "d"} {
		if _, err := client.CoreV1().Pods("default").Create(ctx, testPod(n), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// As kube-apiserver does, the watch starts and its one event is an
	// ERROR with a 410 Expired Status naming the oldest resumable version.
	w, err := client.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e := nextEvent(t, w)
	err = apierrors.FromObject(e.Object)
	if e.Type != watch.Error || !apierrors.IsResourceExpired(err) || err.Error() != "too old resource version: 1 (3)" {
		t.Fatalf("watch from a resourceVersion older than the history: %s %v, want ERROR 410 Expired \"too old resource version: 1 (3)\"", e.Type, err)
	}
}

func TestNamespacesAndNodesAreClusterScoped(t *testing.T) {
	_, client := bareServer(t, store.New(), "")
	ctx := context.Background()
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Labels["kubernetes.io/metadata.name"] != "shop" || ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("namespace labels %v phase %q", ns.Labels, ns.Status.Phase)
	}
	if _, err := client.CoreV1().Pods("shop").Create(ctx, testPod("a"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("nowhere").Create(ctx, testPod("a"), metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod in a missing namespace: %v, want 404", err)
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, "default", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("deleting default: %v, want 403", err)
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("shop").Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod of a deleted namespace: %v, want 404", err)
	}
}
