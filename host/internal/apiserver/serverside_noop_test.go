package apiserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	manifests "github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/cluster"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// twoPods are the manifests of TestServerSideApplyOfServedManifestsIsANoOp:
// two pods the scheduler spreads over two nodes, and their Service.
const twoPods = `apiVersion: v1
kind: Pod
metadata: {name: a, labels: {app: web}}
spec:
  containers: [{name: c, image: "wasm://embedded/echo", ports: [{containerPort: 7000}]}]
---
apiVersion: v1
kind: Pod
metadata: {name: b, labels: {app: web}}
spec:
  containers: [{name: c, image: "wasm://embedded/echo", ports: [{containerPort: 7000}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 7000}]
`

// podState is what a no-op write must leave alone.
type podState struct {
	uid, node, rv string
	generation    int64
	restarts      int32
	started       string
}

func statesOf(t *testing.T, s *store.Store) map[string]podState {
	t.Helper()
	out := map[string]podState{}
	for _, o := range s.List("Pod", "default") {
		p := o.(*corev1.Pod)
		st := podState{uid: string(p.UID), node: p.Spec.NodeName, rv: p.ResourceVersion, generation: p.Generation}
		for _, cs := range p.Status.ContainerStatuses {
			st.restarts += cs.RestartCount
			if cs.State.Running != nil {
				st.started = cs.State.Running.StartedAt.String()
			}
		}
		out[p.Name] = st
	}
	return out
}

// Issue 19, item 2: `kubectl apply --server-side` of the very manifests
// `serve -f` started from changes nothing (docs/kubectl.md, "Server-side
// apply"): no generation moves, no pod restarts or moves to another node,
// and a second apply changes no resourceVersion at all. The objects serve
// created carry managedFields (kube32-serve's), as every object does.
func TestServerSideApplyOfServedManifestsIsANoOp(t *testing.T) {
	images := echoImages(t)
	file := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(file, []byte(twoPods), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err := manifests.DecodeFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Start(context.Background(), cluster.Options{Images: os.DirFS(images), Objects: objs, Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	dir := t.TempDir()
	e := &env{c: c, kubeconfig: filepath.Join(dir, "kubeconfig"), cacheDir: filepath.Join(dir, "cache"), apiURL: c.APIURL()}
	if err := kubeconfig.Write(e.kubeconfig, kubeconfig.Entry{Server: c.APIURL()}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "both pods to run", func() bool {
		st := statesOf(t, c.Store)
		return c.Ready() && len(st) == 2 && st["a"].started != "" && st["b"].started != ""
	})
	before := statesOf(t, c.Store)
	if before["a"].node == before["b"].node {
		t.Logf("both pods on %s; the test still checks they stay", before["a"].node)
	}
	for _, name := range []string{"a", "b"} {
		o, _ := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
		owned := false
		for _, m := range o.(metav1.Object).GetManagedFields() {
			owned = owned || m.Manager == apiserver.ServeManager && m.Operation == metav1.ManagedFieldsOperationUpdate &&
				strings.Contains(m.FieldsV1.String(), `"f:image"`)
		}
		if !owned {
			t.Errorf("pod %s created by serve -f has managedFields %v, want kube32-serve's owning its spec", name, o.(metav1.Object).GetManagedFields())
		}
	}

	out := e.run(t, false, "apply", "--server-side", "-f", file)
	if strings.Count(out, "serverside-applied") != 3 {
		t.Errorf("kubectl apply --server-side: %s", out)
	}
	after := statesOf(t, c.Store)
	for name, b := range before {
		a := after[name]
		if a.uid != b.uid || a.node != b.node || a.generation != b.generation || a.restarts != b.restarts || a.started != b.started {
			t.Errorf("pod %s changed by a server-side apply of its own manifest: %+v -> %+v", name, b, a)
		}
	}
	keys := []store.Key{{Kind: "Pod", Namespace: "default", Name: "a"}, {Kind: "Pod", Namespace: "default", Name: "b"}, {Kind: "Service", Namespace: "default", Name: "web"}}
	versions := map[store.Key]string{}
	for _, k := range keys {
		versions[k] = resourceVersion(t, c.Store, k)
	}
	e.run(t, false, "apply", "--server-side", "-f", file)
	for _, k := range keys {
		if rv := resourceVersion(t, c.Store, k); rv != versions[k] {
			t.Errorf("a second server-side apply wrote %v: resourceVersion %s -> %s", k, versions[k], rv)
		}
	}

	// serve's objects carry the last-applied annotation of a client-side
	// apply, so kubectl's first server-side apply took kube32-serve's fields
	// over, as kube-apiserver upgrades an object applied client-side: a
	// changed manifest then applies without conflicts.
	changed := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(changed, []byte(strings.Replace(twoPods, "targetPort: 7000", "targetPort: 7001", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	e.run(t, false, "apply", "--server-side", "-f", changed)
	if out := e.run(t, false, "get", "svc", "web", "-o", "jsonpath={.spec.ports[0].targetPort}"); out != "7001" {
		t.Errorf("targetPort after a server-side apply of the changed manifest: %q", out)
	}
	if after := statesOf(t, c.Store); after["a"].generation != before["a"].generation || after["b"].uid != before["b"].uid {
		t.Errorf("a Service change touched the pods: %+v -> %+v", before, after)
	}
}
