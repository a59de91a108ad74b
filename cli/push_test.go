package cli_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/opencontainers/go-digest"
	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// pushFixture writes the C test pod good.c to a file and pushes it to ref
// with `kube32 push`; it returns the module and push's output.
func pushFixture(t *testing.T, ref string) ([]byte, string) {
	t.Helper()
	module := testpods.Fixture(t, "good", 65536)
	file := filepath.Join(t.TempDir(), "good.wasm")
	if err := os.WriteFile(file, module, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run(t, "push", file, ref)
	if code != 0 {
		t.Fatalf("kube32 push %s %s: exit %d: %s", file, ref, code, out)
	}
	return module, out
}

// servePod serves, with an empty image tree, one Pod whose image is ref;
// cacheDir "" shares the tests' caches.
func servePod(t *testing.T, ref, cacheDir string) *host.Cluster {
	t.Helper()
	return servePodOn(t, ref, cacheDir, "", 0)
}

// servePodOn is servePod with the Pod bound to node (none: "") of a
// cluster of that many nodes (0: serve's default, the control plane alone).
func servePodOn(t *testing.T, ref, cacheDir, node string, nodes int) *host.Cluster {
	t.Helper()
	root := t.TempDir()
	testenv.WriteFiles(t, filepath.Join(root, "firmware"), map[string]string{"README": "no images: the pod's image is pulled"})
	file := filepath.Join(root, "pod.yaml")
	manifest := "apiVersion: v1\nkind: Pod\nmetadata: {name: pulled}\nspec:\n  containers:\n  - name: c\n    image: \"" + ref + "\"\n"
	if node != "" {
		manifest += "  nodeName: " + node + "\n"
	}
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	args := []string{"--images", root, "-f", file}
	if cacheDir != "" {
		args = append(args, "--cache-dir", cacheDir)
	}
	if nodes != 0 {
		args = append(args, "--nodes", strconv.Itoa(nodes))
	}
	c, _ := serve(t, args...)
	return c
}

func pulledPod(c *host.Cluster) *corev1.Pod {
	o, _ := c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: "pulled"})
	p, _ := o.(*corev1.Pod)
	return p
}

// waitingReason is the reason the pod's container waits with, or "".
func waitingReason(c *host.Cluster) (string, string) {
	p := pulledPod(c)
	if p == nil || len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Waiting == nil {
		return "", ""
	}
	w := p.Status.ContainerStatuses[0].State.Waiting
	return w.Reason, w.Message
}

func getPod(t *testing.T, c *host.Cluster) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.PodURL()+"/", nil)
	req.Header.Set(abi.HeaderPod, "default/pulled")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// kube32 push writes the CNCF wasm artifact layout (docs/oci.md), as crane
// reads it back: the wasm config and one application/wasm layer whose
// digest is the module's; a Pod whose image is that reference is pulled
// by serve's node and answers 200 on the pod port.
func TestPushWritesAWasmArtifactThatServeRuns(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/app/good:v1"
	module, out := pushFixture(t, ref)
	raw, m := testregistry.Manifest(t, ref)
	if m.Config.MediaType != "application/vnd.wasm.config.v0+json" || len(m.Layers) != 1 ||
		m.Layers[0].MediaType != "application/wasm" || m.Layers[0].Digest != digest.FromBytes(module) || m.Layers[0].Size != int64(len(module)) {
		t.Fatalf("manifest %s", raw)
	}
	if want := ref + "@" + digest.FromBytes(raw).String(); !strings.Contains(out, want) {
		t.Errorf("push printed %q, want the pushed digest %s", out, want)
	}

	c := servePod(t, ref, "")
	testenv.Eventually(t, "the pulled pod to run", func() bool {
		p := pulledPod(c)
		return p != nil && p.Status.Phase == corev1.PodRunning
	})
	if code := getPod(t, c); code != http.StatusOK {
		t.Errorf("pulled pod answered %d, want 200", code)
	}
	if id, want := pulledPod(c).Status.ContainerStatuses[0].ImageID, reg.Host+"/app/good@"+digest.FromBytes(raw).String(); id != want {
		t.Errorf("imageID %q, want %q", id, want)
	}
	if !hasEvent(c, "pulled", "Pulled", digest.FromBytes(raw).String()) {
		t.Error("no Pulled event naming the manifest's digest")
	}
}

// A worker node (the kubelet of `kube32 node`, here in serve's process)
// pulls and runs the image as the control plane's does; its pod port
// answers 200.
func TestWorkerNodeRunsAPulledPod(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/app/good:v1"
	pushFixture(t, ref)
	c := servePodOn(t, ref, t.TempDir(), "kube32-worker-1", 2)
	testenv.EventuallyNil(t, "the pulled pod to run on the worker", func() error {
		if p := pulledPod(c); p == nil || p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("pod %+v", p.Status)
		}
		return nil
	})
	p := pulledPod(c)
	if p.Spec.NodeName != "kube32-worker-1" || p.Status.HostIP != "127.0.0.2" || !strings.Contains(p.Status.ContainerStatuses[0].ImageID, "@sha256:") {
		t.Fatalf("pod on %s (%s), imageID %q", p.Spec.NodeName, p.Status.HostIP, p.Status.ContainerStatuses[0].ImageID)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(c.PodURL(), "http://"), ":")
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.2:"+port+"/", nil)
	req.Header.Set(abi.HeaderPod, "default/pulled")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the worker's pulled pod answered %d, want 200", resp.StatusCode)
	}
}

// While its registry is down, the pod's container waits with ErrImagePull
// after each failed pull and ImagePullBackOff until the next, as a
// kubelet's does; once the registry is up and holds the image, the next
// pull runs the pod.
func TestServeReportsImagePullBackOffUntilTheRegistryIsUp(t *testing.T) {
	addr := testregistry.FreeAddr(t)
	ref := addr + "/app/good:v1"
	c := servePod(t, ref, t.TempDir()) // a cache of its own: nothing pulled before
	testenv.Eventually(t, "ImagePullBackOff", func() bool {
		reason, msg := waitingReason(c)
		return reason == "ImagePullBackOff" && strings.Contains(msg, ref)
	})
	if p := pulledPod(c); p.Status.Phase != corev1.PodPending {
		t.Errorf("phase %s, want Pending", p.Status.Phase)
	}
	if !hasEvent(c, "pulled", "ErrImagePull", ref) || !hasEvent(c, "pulled", "ImagePullBackOff", ref) {
		t.Error("no ErrImagePull and ImagePullBackOff events naming the reference")
	}
	if code := getPod(t, c); code == http.StatusOK {
		t.Error("a pod without its image answered 200")
	}
	testregistry.Start(t, addr)
	pushFixture(t, ref)
	testenv.Eventually(t, "the pod to run once the registry is up", func() bool {
		p := pulledPod(c)
		return p != nil && p.Status.Phase == corev1.PodRunning
	})
	if code := getPod(t, c); code != http.StatusOK {
		t.Errorf("pulled pod answered %d, want 200", code)
	}
}

// A layer whose bytes do not match its digest is refused: the pod waits
// with ErrImagePull or ImagePullBackOff, the message saying so, and never
// runs what it was sent.
func TestServeRefusesATamperedLayer(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/app/good:v1"
	pushFixture(t, ref)
	reg.Tamper()
	c := servePod(t, ref, t.TempDir())
	testenv.Eventually(t, "the pull to fail", func() bool {
		reason, msg := waitingReason(c)
		return (reason == "ErrImagePull" || reason == "ImagePullBackOff") && strings.Contains(msg, "mismatch")
	})
	if p := pulledPod(c); p.Status.Phase == corev1.PodRunning {
		t.Error("the pod runs a tampered module")
	}
}

// push refuses what it cannot push with an error naming the file or the
// reference, and pushes nothing.
func TestPushRefusesBadModulesAndReferences(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "notes.wasm")
	good := filepath.Join(dir, "good.wasm")
	os.WriteFile(notWasm, []byte("not a module"), 0o644)
	os.WriteFile(good, testpods.Fixture(t, "good", 65536), 0o644)
	for _, tc := range []struct{ file, ref, want string }{
		{filepath.Join(dir, "missing.wasm"), reg.Host + "/app/x:v1", "missing.wasm"},
		{t.TempDir(), reg.Host + "/app/x:v1", "holds no files"},
		{notWasm, reg.Host + "/app/x:v1", "not a WebAssembly binary"},
		{good, "wasm://embedded/good", `image "wasm://embedded/good"`},
		{good, "good", `image "good"`},
		{good, reg.Host + "/app/x@sha256:" + strings.Repeat("a", 64), "not a digest"},
	} {
		code, out := run(t, "push", tc.file, tc.ref)
		if code == 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "nothing pushed") {
			t.Errorf("push %s %s: exit %d: %s; want an error saying %q", tc.file, tc.ref, code, out, tc.want)
		}
	}
	if _, err := crane.Manifest(reg.Host+"/app/x:v1", crane.Insecure); err == nil {
		t.Error("a refused push left a manifest")
	}
}
