package apiserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/host/internal/store"
)

// storeEnv is a kubectl pointing at an API server over a bare store: no
// pods run, which server-side apply does not need.
func storeEnv(t *testing.T) (*env, *store.Store) {
	t.Helper()
	s := store.New()
	srv, _ := bareServer(t, s, "")
	dir := t.TempDir()
	e := &env{kubeconfig: filepath.Join(dir, "kubeconfig"), cacheDir: filepath.Join(dir, "cache"), apiURL: srv.URL}
	if err := kubeconfig.Write(e.kubeconfig, kubeconfig.Entry{Server: srv.URL}); err != nil {
		t.Fatal(err)
	}
	return e, s
}

// manifest writes a manifest file and returns its path.
func manifest(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifest.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// managers is who manages what in an object: manager/operation -> fieldsV1.
func managers(t *testing.T, s *store.Store, key store.Key) map[string]string {
	t.Helper()
	o, ok := s.Get(key)
	if !ok {
		t.Fatalf("%v is not stored", key)
	}
	out := map[string]string{}
	for _, m := range o.(metav1.Object).GetManagedFields() {
		fields := ""
		if m.FieldsV1 != nil {
			fields = m.FieldsV1.GetRawString()
		}
		out[m.Manager+"/"+string(m.Operation)] = fields
	}
	return out
}

func resourceVersion(t *testing.T, s *store.Store, key store.Key) string {
	t.Helper()
	o, ok := s.Get(key)
	if !ok {
		t.Fatalf("%v is not stored", key)
	}
	return o.(metav1.Object).GetResourceVersion()
}

// kubectl apply --server-side creates, then applying the same manifest
// again changes nothing, for a built-in kind with a schema (Service, Pod)
// and for kube32's own StaticBundle.
func TestServerSideApplyTwiceChangesNothing(t *testing.T) {
	e, s := storeEnv(t)
	for _, tt := range []struct {
		name, manifest, printed string
		key                     store.Key
		owned                   string // in the fieldsV1 of kubectl's Apply entry
	}{
		{"Service", `apiVersion: v1
kind: Service
metadata: {name: web, labels: {app: web}}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 7000}]
`, "service/web serverside-applied", store.Key{Kind: "Service", Namespace: "default", Name: "web"}, `"k:{\"port\":80,\"protocol\":\"TCP\"}"`},
		{"Pod", `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: c, image: wasm://embedded/echo, env: [{name: A, value: "1"}]}]
`, "pod/web serverside-applied", store.Key{Kind: "Pod", Namespace: "default", Name: "web"}, `"k:{\"name\":\"c\"}"`},
		{"StaticBundle", `apiVersion: kube32.io/v1
kind: StaticBundle
metadata: {name: site}
spec: {description: the web site}
`, "staticbundle.kube32.io/site serverside-applied", store.Key{Kind: "StaticBundle", Namespace: "default", Name: "site"}, `"f:description"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := manifest(t, tt.manifest)
			if out := e.run(t, false, "apply", "--server-side", "-f", path); strings.TrimSpace(out) != tt.printed {
				t.Fatalf("first apply printed %q, want %q", out, tt.printed)
			}
			rv, version := resourceVersion(t, s, tt.key), s.Version()
			m := managers(t, s, tt.key)
			if len(m) != 1 || !strings.Contains(m["kubectl/Apply"], tt.owned) {
				t.Errorf("managedFields %v, want only kubectl's Apply owning %s", m, tt.owned)
			}
			if out := e.run(t, false, "apply", "--server-side", "-f", path); strings.TrimSpace(out) != tt.printed {
				t.Errorf("second apply printed %q, want %q", out, tt.printed)
			}
			if got := resourceVersion(t, s, tt.key); got != rv || s.Version() != version {
				t.Errorf("the second apply wrote: resourceVersion %s -> %s, store version %d -> %d", rv, got, version, s.Version())
			}
		})
	}
	// Admission ran on what apply made: the Service got its defaults.
	o, _ := s.Get(store.Key{Kind: "Service", Namespace: "default", Name: "web"})
	if svc := o.(*corev1.Service); svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("applied Service not defaulted: type %q, protocol %q", svc.Spec.Type, svc.Spec.Ports[0].Protocol)
	}
	o, _ = s.Get(store.Key{Kind: "StaticBundle", Namespace: "default", Name: "site"})
	if b := o.(*kube32v1.StaticBundle); b.Spec.Description != "the web site" {
		t.Errorf("StaticBundle description %q", b.Spec.Description)
	}
}

// Two field managers setting the same field conflict as with
// kube-apiserver, and --force-conflicts moves the field to the second;
// a field set by client-side apply or by a patch (an Update) conflicts the
// same way. A Service's selector is an atomic map: the field is
// .spec.selector as a whole.
func TestServerSideApplyConflicts(t *testing.T) {
	e, s := storeEnv(t)
	service := func(selector string) string {
		return manifest(t, "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: "+selector+"}\n  ports: [{port: 80}]\n")
	}
	key := store.Key{Kind: "Service", Namespace: "default", Name: "web"}
	selector := func() string {
		o, _ := s.Get(key)
		return o.(*corev1.Service).Spec.Selector["app"]
	}

	e.run(t, false, "apply", "--server-side", "--field-manager=a", "-f", service("a"))
	version := s.Version()
	out := e.run(t, true, "apply", "--server-side", "--field-manager=b", "-f", service("b"))
	if want := `Apply failed with 1 conflict: conflict with "a": .spec.selector`; !strings.Contains(out, want) {
		t.Errorf("conflicting apply printed %q, want %q", out, want)
	}
	if s.Version() != version || selector() != "a" {
		t.Errorf("the conflicting apply wrote: selector %q", selector())
	}

	e.run(t, false, "apply", "--server-side", "--field-manager=b", "--force-conflicts", "-f", service("b"))
	m := managers(t, s, key)
	if selector() != "b" || !strings.Contains(m["b/Apply"], `"f:selector":{}`) || strings.Contains(m["a/Apply"], `"f:selector"`) {
		t.Errorf("after --force-conflicts: selector %q, managedFields %v; want b owning .spec.selector, a not", selector(), m)
	}

	t.Run("with client-side apply", func(t *testing.T) {
		key := store.Key{Kind: "Service", Namespace: "default", Name: "api"}
		csa := "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec:\n  selector: {app: %s}\n  ports: [{port: 80}]\n"
		e.run(t, false, "apply", "-f", manifest(t, strings.Replace(csa, "%s", "api", 1)))
		if m := managers(t, s, key); !strings.Contains(m["kubectl-client-side-apply/Update"], `"f:selector":{}`) {
			t.Fatalf("after client-side apply: managedFields %v, want kubectl-client-side-apply's Update owning .spec.selector", m)
		}
		out := e.run(t, true, "apply", "--server-side", "--field-manager=ssa", "-f", manifest(t, strings.Replace(csa, "%s", "other", 1)))
		if want := `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .spec.selector`; !strings.Contains(out, want) {
			t.Errorf("apply over client-side apply printed %q, want %q", out, want)
		}
	})

	t.Run("patch records its manager", func(t *testing.T) {
		e.run(t, false, "label", "service", "web", "tier=front")
		if m := managers(t, s, key); !strings.Contains(m["kubectl-label/Update"], `"f:tier"`) {
			t.Fatalf("after kubectl label: managedFields %v, want kubectl-label's Update owning .metadata.labels.tier", m)
		}
		out := e.run(t, true, "apply", "--server-side", "--field-manager=b", "-f",
			manifest(t, "apiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {tier: back}}\nspec:\n  selector: {app: b}\n  ports: [{port: 80}]\n"))
		if want := `conflict with "kubectl-label" using v1: .metadata.labels.tier`; !strings.Contains(out, want) {
			t.Errorf("apply over a label printed %q, want %q", out, want)
		}
	})
}

// Apply through /status sets the status and owns only it; through the
// main resource the status is kept and nobody comes to own it.
func TestServerSideApplyOfStatus(t *testing.T) {
	s := store.New()
	srv, _ := bareServer(t, s, "")
	pods := srv.URL + "/api/v1/namespaces/default/pods/web"
	key := store.Key{Kind: "Pod", Namespace: "default", Name: "web"}
	const applyType = "application/apply-patch+yaml"
	withStatus := strings.Replace(goodPod, `"spec":`, `"status":{"phase":"Running"},"spec":`, 1)
	if code, body := send(t, "PATCH", pods+"?fieldManager=me", applyType, withStatus); code != 201 {
		t.Fatalf("creating by apply: %d %s", code, body)
	}
	phase := func() corev1.PodPhase {
		o, _ := s.Get(key)
		return o.(*corev1.Pod).Status.Phase
	}
	if phase() == corev1.PodRunning || strings.Contains(managers(t, s, key)["me/Apply"], "f:status") {
		t.Errorf("apply through the resource set the status: phase %q, managedFields %v", phase(), managers(t, s, key))
	}
	if code, body := send(t, "PATCH", pods+"/status?fieldManager=kubelet", applyType, withStatus); code != 200 {
		t.Fatalf("applying the status: %d %s", code, body)
	}
	o, _ := s.Get(key)
	var kubelet string
	for _, m := range o.(metav1.Object).GetManagedFields() {
		if m.Manager == "kubelet" && m.Subresource == "status" {
			kubelet = m.FieldsV1.GetRawString()
		}
	}
	if phase() != corev1.PodRunning || kubelet != `{"f:status":{"f:phase":{}}}` {
		t.Errorf("after applying the status: phase %q, kubelet's fields %q, want Running and only .status.phase", phase(), kubelet)
	}
}
