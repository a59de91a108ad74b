package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// jarManifest runs the cookies test pod (internal/testkit/testpods/c/cookies.c)
// on the control plane behind /cp and on the worker behind /w.
var jarManifest = testmanifest.Docs(
	testmanifest.PinnedPod("default/jar-cp", "cookies", "{kubernetes.io/hostname: kube32-control-plane}"),
	testmanifest.PinnedPod("default/jar-w", "cookies", "{kubernetes.io/hostname: kube32-worker-1}"),
	testmanifest.Service("default/jar-cp"),
	testmanifest.Service("default/jar-w"),
	testmanifest.Ingress("default/jar",
		testmanifest.Path("/cp", testmanifest.ToService("jar-cp")),
		testmanifest.Path("/w", testmanifest.ToService("jar-w"))))

// TestUITokenNeverReachesAPod is the rule of docs/ui.md, "The token", in a
// real browser: once logged in to the web view, Chromium holds the session
// cookie and would send it to the Ingress port of the same host, yet the
// pods behind the Ingress (on the control plane and on a worker) see only
// the app's own cookies; and a pod's page cannot replace the session
// cookie.
func TestUITokenNeverReachesAPod(t *testing.T) {
	const token = "ui-cookie-test-token"
	images := t.TempDir()
	wasmDir := filepath.Join(images, "firmware", "images", "wasm")
	testenv.WriteFiles(t, images, map[string]string{"jar.yaml": jarManifest})
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wasmDir, "cookies.wasm"), testpods.Fixture(t, "cookies", 65536), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Tool(t, "chromium") // before the cluster starts
	t.Chdir(t.TempDir())
	c, _ := testserve.Serve(t, "--images", images, "-f", filepath.Join(images, "jar.yaml"), "--nodes", "2", "--token", token)

	b := openBrowser(t, 1024, 768, trustingCluster(t, c))
	b.call("Network.enable", nil)
	b.navigate(c.APITLSURL() + abi.UIPath)
	testenv.Eventually(t, "the page asks for the token", func() bool { return b.eval(`document.querySelector('#login')?.hidden === false`) == "true" })
	b.eval(`document.querySelector('#login input').value = ` + quoteJS(token) + `; document.querySelector('#login').requestSubmit()`)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("page %s: %q\ncookies of the view: %v\nerrors: %v", b.eval(`location.href`), b.eval(`document.body?.innerText`),
				b.cookies(c.APITLSURL()+abi.UIPath), b.pageErrors())
		}
	})
	testenv.Eventually(t, "the page shows the cluster", func() bool { return b.eval(`!document.querySelector('#main').hidden`) == "true" })

	// The page's own cookie, set on the Ingress's host: it must still
	// reach the pods.
	b.navigate(c.IngressURL() + "/cp/set")
	testenv.Eventually(t, "the pod's /set page loads", func() bool { return strings.Contains(b.eval(`document.body?.innerText`), "set own=0") })
	if got := b.eval(`document.body.innerText`); !strings.Contains(got, "set session="+testpods.Code(abi.ErrInval)) {
		t.Errorf("the pod set the session cookie: %q", got)
	}
	sent := b.cookies(c.IngressURL() + "/")
	if sent[abi.SessionCookie] != token || sent["pod-cookie"] != "1" {
		t.Fatalf("Chromium would send %v to the Ingress port; want the session cookie (so that the test means something) and the pod's", sent)
	}
	for _, path := range []string{"/cp/echo", "/w/echo"} {
		b.navigate(c.IngressURL() + path)
		testenv.Eventually(t, "the pod behind "+path+" answers", func() bool {
			return strings.HasPrefix(b.eval(`document.body?.innerText`), "cookie=")
		})
		if got := b.eval(`document.body.innerText`); strings.TrimSpace(got) != "cookie=pod-cookie=1" {
			t.Errorf("the pod behind %s saw %q, want only its own cookie", path, got)
		}
	}
	if got := b.cookies(c.APITLSURL() + abi.UIPath)[abi.SessionCookie]; got != token {
		t.Errorf("after the pod's pages the session cookie is %q", got)
	}
	if errs := b.pageErrors(); len(errs) > 0 {
		t.Logf("the pages reported:\n%s", strings.Join(errs, "\n"))
	}
}
