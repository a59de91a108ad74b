package cli_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// builtSite makes a project of the static-site template with brotli: true
// and a stylesheet large enough to compress, builds it with kube32 build,
// and returns the built bundle's folder.
func builtSite(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	t.Chdir(root)
	if code, out := run(t, "new", "site", "--template", "static-site"); code != 0 {
		t.Fatalf("new: %s", out)
	}
	project := filepath.Join(root, "site")
	yaml, err := os.ReadFile(filepath.Join(project, "kube32.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	yaml = []byte(strings.Replace(string(yaml), "dir: site", "dir: site\n    brotli: true", 1))
	css := strings.Repeat("main p { margin: 1rem 0; color: #1d2330; }\n", 200)
	testenv.WriteFiles(t, project, map[string]string{"kube32.yaml": string(yaml), "site/css/big.css": css})
	t.Chdir(project)
	if code, out := run(t, "build"); code != 0 {
		t.Fatalf("build: %s", out)
	}
	dir := filepath.Join(project, "build", "firmware", "images", "web", "site")
	for _, f := range []string{"index.html", "css/big.css.gz", "css/big.css.br"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the build wrote no %s: %v", f, err)
		}
	}
	return dir
}

var pushedDigest = regexp.MustCompile(`@(sha256:[0-9a-f]{64})`)

// pushBundle runs kube32 push DIR REF and returns the digest it printed.
func pushBundle(t *testing.T, dir, ref string) string {
	t.Helper()
	code, out := run(t, "push", dir, ref)
	m := pushedDigest.FindStringSubmatch(out)
	if code != 0 || m == nil || !strings.Contains(out, "pushed bundle "+dir+" to "+ref+"@") {
		t.Fatalf("kube32 push %s %s: exit %d: %s", dir, ref, code, out)
	}
	return m[1]
}

// serveBundleImage serves a StaticBundle "site" whose spec.image is ref and
// an Ingress routing / to it; the firmware tree holds no bundle "site", but
// when tree is not "" it holds that folder as the bundle "tree", which the
// Ingress routes /tree to.
func serveBundleImage(t *testing.T, ref, tree string) *host.Cluster {
	t.Helper()
	root := t.TempDir()
	testenv.WriteFiles(t, filepath.Join(root, "firmware"), map[string]string{"README": "no bundle site: it is pulled"})
	if tree != "" {
		if err := os.CopyFS(filepath.Join(root, "firmware", "images", "web", "tree"), os.DirFS(tree)); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(root, "site.yaml")
	manifest := testmanifest.Docs(testmanifest.Bundle("site", ref),
		testmanifest.Ingress("site", testmanifest.Path("/", testmanifest.ToBundle("site")), testmanifest.Path("/tree", testmanifest.ToBundle("tree"))))
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--images", root, "-f", file, "--cache-dir", t.TempDir())
	return c
}

func getEncoded(t *testing.T, url, acceptEncoding string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", acceptEncoding) // set: the client decodes nothing
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body
}

// kube32 push BUNDLE writes the built bundle of a static site as a bundle
// artifact (docs/oci.md, "Bundles"), as crane reads it back, and the same
// build pushes to the same digest; serve's Ingress serves a StaticBundle
// whose spec.image is that reference, with no such bundle in its image
// tree, by the rules of docs/bundles.md ("Serving"): each file's .br to a
// client that accepts br, its .gz to one that accepts gzip, the file
// itself to one that accepts neither; every answer is the one the same
// build gets from the image tree, headers and bytes.
func TestPushedBundleIsServedFromAStaticBundleImage(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	dir := builtSite(t)
	ref := reg.Host + "/web/site:v1"
	first := pushBundle(t, dir, ref)
	if again := pushBundle(t, dir, ref); again != first {
		t.Errorf("the same build pushed twice: %s then %s", first, again)
	}
	raw, m := testregistry.Manifest(t, ref)
	if digest.FromBytes(raw).String() != first || m.ArtifactType != "application/vnd.kube32.bundle.v1" ||
		len(m.Layers) != 1 || m.Layers[0].MediaType != "application/vnd.kube32.bundle.layer.v1.tar" {
		t.Fatalf("manifest %s (digest %s), push printed %s", raw, digest.FromBytes(raw), first)
	}

	c := serveBundleImage(t, ref, dir)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		path, accept, file, encoding string
	}{
		{"/css/big.css", "br, gzip", "css/big.css.br", "br"},
		{"/css/big.css", "gzip", "css/big.css.gz", "gzip"},
		{"/css/big.css", "identity", "css/big.css", ""},
		{"/index.html", "identity", "index.html", ""},
		{"/products/42", "identity", "index.html", ""}, // the single-page-app fallback
	} {
		var status int
		var h http.Header
		var body []byte
		testenv.Eventually(t, "the pulled bundle to answer "+tc.path, func() bool {
			status, h, body = getEncoded(t, c.IngressURL()+tc.path, tc.accept)
			return status != http.StatusServiceUnavailable
		})
		if status != http.StatusOK || h.Get("Content-Encoding") != tc.encoding || string(body) != string(read(tc.file)) {
			t.Errorf("GET %s (Accept-Encoding: %s) = %d, Content-Encoding %q, %d bytes; want 200, %q and the %d bytes of %s",
				tc.path, tc.accept, status, h.Get("Content-Encoding"), len(body), tc.encoding, len(read(tc.file)), tc.file)
		}
		// The same build from the image tree answers alike.
		treeStatus, treeH, treeBody := getEncoded(t, c.IngressURL()+"/tree"+tc.path, tc.accept)
		if treeStatus != status || string(treeBody) != string(body) {
			t.Errorf("GET /tree%s = %d, %d bytes; the pulled bundle answered %d, %d bytes: %s", tc.path, treeStatus, len(treeBody), status, len(body), treeBody)
		}
		for _, name := range []string{"Content-Type", "Content-Encoding", "Etag", "Cache-Control", "Vary", "Content-Length"} {
			if treeH.Get(name) != h.Get(name) {
				t.Errorf("GET %s: %s %q from the image, %q from the image tree", tc.path, name, h.Get(name), treeH.Get(name))
			}
		}
	}
	if status, _, _ := getEncoded(t, c.IngressURL()+"/missing.css", "gzip"); status != http.StatusNotFound {
		t.Errorf("GET /missing.css = %d, want 404", status)
	}
}

// A bundle whose layer the registry alters is refused: its routes answer
// 503 naming the StaticBundle and the digest mismatch, never other bytes
// (fail closed).
func TestStaticBundleImageWithATamperedLayerAnswers503(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"index.html": "<h1>site</h1>"})
	ref := reg.Host + "/web/site:v1"
	pushBundle(t, dir, ref)
	reg.Tamper()
	c := serveBundleImage(t, ref, "")
	var status int
	var h http.Header
	var body []byte
	testenv.Eventually(t, "the pull to fail", func() bool {
		status, h, body = getEncoded(t, c.IngressURL()+"/", "identity")
		return status != http.StatusServiceUnavailable || !strings.Contains(string(body), "being pulled")
	})
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "StaticBundle default/site") ||
		!strings.Contains(string(body), "mismatch") || h.Get("Retry-After") == "" {
		t.Errorf("GET / of a tampered bundle = %d (Retry-After %q): %s; want 503 naming the bundle and the mismatch", status, h.Get("Retry-After"), body)
	}
}

// While the registry is down the bundle's routes answer 503 naming the
// bundle and the reference; the failure is not kept for good: once the
// registry holds the bundle, the next pull (after ImagePullBackoffInitial)
// gets it and the routes serve the files.
func TestStaticBundleImageIsPulledAgainAfterAFailure(t *testing.T) {
	addr := testregistry.FreeAddr(t)
	ref := addr + "/web/site:v1"
	c := serveBundleImage(t, ref, "")
	status, _, body := getEncoded(t, c.IngressURL()+"/", "identity")
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "StaticBundle default/site") || !strings.Contains(string(body), ref) {
		t.Fatalf("GET / while the registry is down = %d: %s; want 503 naming the bundle and %s", status, body, ref)
	}
	testregistry.Start(t, addr)
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"index.html": "<h1>up</h1>"})
	pushBundle(t, dir, ref)
	testenv.Eventually(t, "the bundle to be pulled again and served", func() bool {
		status, _, body := getEncoded(t, c.IngressURL()+"/", "identity")
		return status == http.StatusOK && string(body) == "<h1>up</h1>"
	})
}

// While a bundle's pull hangs (a registry that never sends the layer), its
// routes answer 503 with Retry-After at once, naming the bundle and the
// pull under way, however many requests come; the other routes (a bundle
// pulled from another registry, one from the image tree) answer as
// before; once the layer comes, the bundle is served (docs/oci.md,
// "Bundles").
func TestHungBundlePullAnswers503AtOnceAndHoldsNoOtherRoute(t *testing.T) {
	site := t.TempDir()
	testenv.WriteFiles(t, site, map[string]string{"index.html": "<h1>site</h1>"})
	up, slow := testregistry.Start(t, "127.0.0.1:0"), testregistry.Start(t, "127.0.0.1:0")
	okRef, hungRef := up.Host+"/web/ok:v1", slow.Host+"/web/hung:v1"
	pushBundle(t, site, okRef)
	pushBundle(t, site, hungRef)
	release := slow.Hang(t)

	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "firmware", "images", "web", "tree"), os.DirFS(site)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "sites.yaml")
	manifest := `apiVersion: kube32.io/v1
kind: StaticBundle
metadata: {name: ok}
spec: {image: "` + okRef + `"}
---
apiVersion: kube32.io/v1
kind: StaticBundle
metadata: {name: hung}
spec: {image: "` + hungRef + `"}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: sites}
spec:
  rules:
  - http:
      paths:
      - {path: /ok, pathType: Prefix, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: ok}}}
      - {path: /hung, pathType: Prefix, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: hung}}}
      - {path: /tree, pathType: Prefix, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: tree}}}
`
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--images", root, "-f", file, "--cache-dir", t.TempDir())
	testenv.Eventually(t, "the bundle of the registry that answers to be served", func() bool {
		status, _, _ := getEncoded(t, c.IngressURL()+"/ok/", "identity")
		return status == http.StatusOK
	})

	// As many requests at once as held a whole Ingress of
	// --max-connections 40 when they waited on the pull.
	const clients = 40
	type answer struct {
		status     int
		retryAfter string
		body       string
		took       time.Duration
	}
	answers := make(chan answer, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			status, h, body := getEncoded(t, c.IngressURL()+"/hung/index.html", "identity")
			answers <- answer{status, h.Get("Retry-After"), string(body), time.Since(start)}
		}()
	}
	for _, path := range []string{"/ok/index.html", "/tree/index.html"} {
		if status, _, body := getEncoded(t, c.IngressURL()+path, "identity"); status != http.StatusOK || string(body) != "<h1>site</h1>" {
			t.Errorf("GET %s while a pull hangs = %d %q, want 200 and the file", path, status, body)
		}
	}
	wg.Wait()
	close(answers)
	for a := range answers {
		if a.status != http.StatusServiceUnavailable || a.retryAfter == "" || !strings.Contains(a.body, "StaticBundle default/hung") ||
			!strings.Contains(a.body, hungRef+" is being pulled") || a.took > 100*time.Millisecond {
			t.Errorf("GET /hung/index.html while its pull hangs = %d (Retry-After %q) in %s: %s; want 503 with Retry-After within 100ms, naming the bundle and the pull",
				a.status, a.retryAfter, a.took, a.body)
		}
	}

	release()
	testenv.Eventually(t, "the bundle to be served once its layer comes", func() bool {
		status, _, body := getEncoded(t, c.IngressURL()+"/hung/index.html", "identity")
		return status == http.StatusOK && string(body) == "<h1>site</h1>"
	})
}
