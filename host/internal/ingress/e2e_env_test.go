package ingress_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/cluster"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// The end-to-end environment: the real cluster (store, scheduler, kubelet
// running wasm pods, Ingress controller) on loopback ports, serving an image
// tree laid out as `kube32 build` writes it, with the whoami test pod as the
// only module and two bundles:
//
//	firmware/images/wasm/whoami.wasm
//	firmware/images/web/whoami/…  the pod image's bundle (k32_resp_asset)
//	firmware/images/web/site/…    a StaticBundle
//
// The bundle files come from testdata/e2e/web/; the .gz variants are made
// here, as the bundler makes them.

// gzipBoth are the bundle files stored plain and as .gz; gzipOnly those
// stored only as .gz.
var (
	gzipBoth = map[string]bool{"app.js": true}
	gzipOnly = map[string]bool{"only.txt": true}
)

// secret is the content of the files outside the bundles that no request
// may read.
const secret = "SECRET outside the bundle\n"

// e2e is the running cluster the cases share.
type e2e struct {
	c      *cluster.Cluster
	addr   string // host:port of the ingress
	source string // testdata/e2e/web, to compare served files with

	logMu sync.Mutex
	logs  []string
}

// startE2E builds whoami.c, lays out the image tree and starts one cluster
// with the pods and Services of testdata/e2e/pods.yaml.
func startE2E(t *testing.T) *e2e {
	t.Helper()
	sdk, err := filepath.Abs(filepath.Join("..", "..", "..", "sdk", "c"))
	if err != nil {
		t.Fatal(err)
	}
	module := testpods.C(t, filepath.Join("testdata", "e2e", "whoami.c"), 65536, "-I", sdk)

	tmp := t.TempDir()
	root := filepath.Join(tmp, "images")
	web := filepath.Join(root, "firmware", "images", "web")
	writeFile(t, filepath.Join(root, "firmware", "images", "wasm", "whoami.wasm"), module)
	source := filepath.Join("testdata", "e2e", "web")
	for _, bundle := range []string{"site", "whoami"} {
		layBundle(t, filepath.Join(source, bundle), filepath.Join(web, bundle))
	}
	// Files a request must never reach: beside the bundle, at the firmware
	// root, and outside the image tree, with symlinks in the bundle to two
	// of them.
	writeFile(t, filepath.Join(web, "secret.txt"), []byte(secret))
	writeFile(t, filepath.Join(root, "firmware", "secret.txt"), []byte(secret))
	writeFile(t, filepath.Join(tmp, "outside", "secret.txt"), []byte(secret))
	for link, target := range map[string]string{
		"inside-link.txt":  filepath.Join("..", "secret.txt"),
		"outside-link.txt": filepath.Join(tmp, "outside", "secret.txt"),
		"outside-dir":      filepath.Join(tmp, "outside"),
	} {
		if err := os.Symlink(target, filepath.Join(web, "site", link)); err != nil {
			t.Fatal(err)
		}
	}
	// kube32 serve confines the image tree with os.Root; so does the test.
	images, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { images.Close() })

	objs, err := manifest.DecodeFile(filepath.Join("testdata", "e2e", "pods.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cache := wazero.NewCompilationCache()
	t.Cleanup(func() { cache.Close(context.Background()) })
	e := &e2e{source: source}
	c, err := cluster.Start(context.Background(), cluster.Options{
		Images: images.FS(), Objects: objs, Cache: cache,
		PodLog: func(ns, name string, l pod.Line) { e.log("pod %s/%s: %s", ns, name, l.Text) },
		Logf:   func(format string, args ...any) { e.log("cluster: "+format, args...) },
	})
	if err != nil {
		t.Fatal(err)
	}
	e.c = c
	e.addr = strings.TrimPrefix(c.IngressURL(), "http://")
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing the cluster: %v", err)
		}
		if t.Failed() {
			e.logMu.Lock()
			defer e.logMu.Unlock()
			t.Log("cluster and pod log:\n" + strings.Join(e.logs, "\n"))
		}
	})
	e.waitReady(t)
	return e
}

// layBundle copies a bundle from testdata, storing the gzipBoth files plain
// and as .gz, and the gzipOnly files only as .gz.
func layBundle(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if gzipBoth[name] || gzipOnly[name] {
			writeFile(t, filepath.Join(to, rel+".gz"), gzipBytes(t, b))
		}
		if !gzipOnly[name] {
			writeFile(t, filepath.Join(to, rel), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(s string) (string, bool) {
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		return "", false
	}
	b, err := io.ReadAll(zr)
	return string(b), err == nil
}

func (e *e2e) log(format string, args ...any) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	e.logs = append(e.logs, fmt.Sprintf(format, args...))
}

// file is a bundle file as testdata holds it: "site/app.js".
func (e *e2e) file(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.source, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitReady waits until every pod has started or failed for good and the
// controller's table is built from the store as it is now.
func (e *e2e) waitReady(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}

// decode reads manifest YAML through the same decoder (and validation) as
// `kube32 serve`.
func decode(t *testing.T, yaml string) []manifest.Object {
	t.Helper()
	objs, err := manifest.Decode(t.Name()+".yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// apply stores the objects of yaml for the rest of the (sub)test, deleting
// them when it ends, and waits until the cluster has caught up with them.
func (e *e2e) apply(t *testing.T, yaml string) {
	t.Helper()
	e.applyNoWait(t, yaml)
	e.waitReady(t)
}

// applyNoWait stores the objects of yaml, deleted when the test ends, and
// returns at once.
func (e *e2e) applyNoWait(t *testing.T, yaml string) {
	t.Helper()
	for _, o := range decode(t, yaml) {
		e.c.Store.Apply(o.Obj)
		key := store.KeyOf(o.Obj)
		t.Cleanup(func() { e.c.Store.Delete(key) })
	}
}

// reply is a response with its body read.
type reply = testhttp.Reply

// whoami is what testdata/e2e/whoami.c answers outside /assets/.
type whoami struct {
	Pod, Method, Path string
}

// podOf is the pod that answered r, "" when r is not whoami's answer.
func podOf(r reply) string {
	var w whoami
	if r.Status != http.StatusOK || json.Unmarshal([]byte(r.Body), &w) != nil {
		return ""
	}
	return w.Pod
}

// do sends method path with Host host ("" for the ingress address) and the
// header lines ("Name: value").
func (e *e2e) do(t *testing.T, method, host, path string, headers ...string) reply {
	t.Helper()
	if host != "" {
		headers = append(headers, "Host: "+host)
	}
	return testhttp.Do(t, method, "http://"+e.addr+path, "", headers...)
}

func (e *e2e) get(t *testing.T, host, path string, headers ...string) reply {
	t.Helper()
	return e.do(t, http.MethodGet, host, path, headers...)
}

// raw sends a GET whose request target is exactly target (no client-side
// cleaning or escaping).
func (e *e2e) raw(t *testing.T, target string) reply {
	t.Helper()
	return testhttp.Raw(t, e.addr, "e2e.test", target)
}

// wantPod checks that GET host path is answered by pod.
func (e *e2e) wantPod(t *testing.T, host, path, pod string) {
	t.Helper()
	e.wantPodAt(t, host, pod, path)
}

// wantPodAt checks that GET host path is answered by pod for each of paths.
func (e *e2e) wantPodAt(t *testing.T, host, pod string, paths ...string) {
	t.Helper()
	for _, path := range paths {
		if got := e.get(t, host, path); podOf(got) != pod {
			t.Errorf("GET %s%s: %s, want an answer from pod %s", host, path, got, pod)
		}
	}
}

// want404 checks that GET host path matches no rule, for each of paths:
// the controller's 404 JSON.
func (e *e2e) want404(t *testing.T, host string, paths ...string) {
	t.Helper()
	for _, path := range paths {
		got := e.get(t, host, path)
		var body map[string]any
		if got.Status != http.StatusNotFound || got.Header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(got.Body), &body) != nil {
			t.Errorf("GET %s%s: %s (Content-Type %q), want the 404 JSON of an unmatched request", host, path, got, got.Header.Get("Content-Type"))
		}
	}
}

// poll sends GET host path until done accepts the reply; cases wait for
// convergence, never for a duration.
func (e *e2e) poll(t *testing.T, host, path string, what string, done func(reply) bool) reply {
	t.Helper()
	var r reply
	testenv.EventuallyNil(t, fmt.Sprintf("GET %s%s: %s", host, path, what), func() error {
		if r = e.get(t, host, path); done(r) {
			return nil
		}
		return fmt.Errorf("last answer %s", r)
	})
	return r
}

// pollPods sends GET path until every pod of want has answered, failing at
// once when any other answer comes.
func (e *e2e) pollPods(t *testing.T, path string, want ...string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, p := range want {
		allowed[p] = true
	}
	seen := map[string]bool{}
	e.poll(t, "", path, fmt.Sprintf("answers from each of %v", want), func(r reply) bool {
		p := podOf(r)
		if !allowed[p] {
			t.Fatalf("GET %s: %s, want an answer from one of %v", path, r, want)
		}
		seen[p] = true
		return len(seen) == len(allowed)
	})
}

// lbStatus is the status.loadBalancer.ingress of the Ingress of key.
func lbStatus(t *testing.T, e *e2e, key store.Key) []networkingv1.IngressLoadBalancerIngress {
	t.Helper()
	o, ok := e.c.Store.Get(key)
	if !ok {
		t.Fatalf("%s is not in the store", key)
	}
	return o.(*networkingv1.Ingress).Status.LoadBalancer.Ingress
}

func jsonInto(s string, v any) error { return json.Unmarshal([]byte(s), v) }
