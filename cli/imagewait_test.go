package cli_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// Pods whose wasm:// module is not in serve's image tree (the replicas of
// a Deployment with a mistyped image) wait as a kubelet waits for an image
// it cannot pull: Pending, ErrImagePull then ImagePullBackOff, the message
// naming the module, never Failed (a Failed pod is replaced by its
// ReplicaSet, which made a storm of pods); once the module is in the tree
// they start by themselves and answer (docs/oci.md, "Pull errors").
func TestServeWaitsForAMissingModule(t *testing.T) {
	root := t.TempDir()
	testenv.WriteFiles(t, filepath.Join(root, "firmware"), map[string]string{"README": "the module apq is not built yet"})
	file := filepath.Join(root, "app.yaml")
	var manifest strings.Builder
	for i := range 2 {
		fmt.Fprintf(&manifest, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: app-%d, labels: {app: app}}\nspec:\n  containers: [{name: app, image: wasm://embedded/apq}]\n", i)
	}
	if err := os.WriteFile(file, []byte(manifest.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--images", root, "-f", file)
	names := []string{"app-0", "app-1"}
	failed := watchForFailed(t, c, names)

	testenv.EventuallyNil(t, "both pods to wait in ImagePullBackOff", func() error {
		for _, name := range names {
			p := podNamed(c, name)
			if p == nil || len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].State.Waiting == nil {
				return fmt.Errorf("pod %s: %+v", name, p)
			}
			w := p.Status.ContainerStatuses[0].State.Waiting
			if p.Status.Phase != corev1.PodPending || w.Reason != "ImagePullBackOff" || !strings.Contains(w.Message, "firmware/images/wasm/apq.wasm not found") {
				return fmt.Errorf("pod %s: phase %s, waiting %s: %s", name, p.Status.Phase, w.Reason, w.Message)
			}
		}
		return nil
	})
	for _, name := range names {
		if !hasEvent(c, name, "ErrImagePull", "wasm://embedded/apq") {
			t.Errorf("pod %s: no ErrImagePull event naming the image", name)
		}
		if code := podAnswers(t, c, name); code == http.StatusOK {
			t.Errorf("pod %s answered 200 without its module", name)
		}
	}

	testenv.WriteFiles(t, root, map[string]string{"firmware/images/wasm/apq.wasm": string(testpods.Fixture(t, "good", 65536))})
	testenv.EventuallyNil(t, "the pods to run once the module is there", func() error {
		for _, name := range names {
			if p := podNamed(c, name); p.Status.Phase != corev1.PodRunning {
				return fmt.Errorf("pod %s: %s", name, p.Status.Phase)
			}
		}
		return nil
	})
	for _, name := range names {
		if code := podAnswers(t, c, name); code != http.StatusOK {
			t.Errorf("pod %s answered %d, want 200", name, code)
		}
	}
	if f := failed(); len(f) > 0 {
		t.Errorf("pods %v were Failed at some point", f)
	}
}

func podNamed(c *host.Cluster, name string) *corev1.Pod {
	o, _ := c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name})
	p, _ := o.(*corev1.Pod)
	return p
}

func podAnswers(t *testing.T, c *host.Cluster, name string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.PodURL()+"/", nil)
	req.Header.Set(abi.HeaderPod, "default/"+name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// watchForFailed looks at the pods names until the test ends and returns
// those it saw in phase Failed.
func watchForFailed(t *testing.T, c *host.Cluster, names []string) func() []string {
	var mu sync.Mutex
	seen := map[string]bool{}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			for _, name := range names {
				if p := podNamed(c, name); p != nil && p.Status.Phase == corev1.PodFailed {
					mu.Lock()
					seen[name] = true
					mu.Unlock()
				}
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { close(done); <-stopped })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for name := range seen {
			out = append(out, name)
		}
		return out
	}
}
