package cli_test

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
)

const watchProject = `name: live
manifests: [app.yaml]
pods:
  - name: answer
    language: c
    source: pods/answer
  - name: other
    language: c
    source: pods/other
bundles:
  - name: site
    dir: site
`

const watchPod = `#include "k32.h"

static char greeting[64];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    k32_env("GREETING", greeting, sizeof greeting);
    k32_resp_header(K32_STR("Content-Type"), K32_STR("text/plain"));
    k32_write_str("ANSWER ");
    k32_write_str(greeting);
    return 0;
}
`

// watchManifest is the project's manifests, EXTRA where more may go.
var watchManifest = testmanifest.Docs(
	testmanifest.Pod("answer", "answer", "env: [{name: GREETING, value: GREETING}]", "resources: {limits: {memory: 64Ki}}"),
	"apiVersion: v1\nkind: Pod\nmetadata: {name: other}\nspec:\n  containers: [{name: other, image: wasm://embedded/other, resources: {limits: {memory: 64Ki}}}]\n",
	testmanifest.Service("answer"),
	testmanifest.Bundle("site", ""),
	testmanifest.AnnotatedIngress("live", map[string]string{"kube32.io/event-stream": "/events=kube32.reload"},
		testmanifest.Path("/api", testmanifest.ToService("answer")),
		testmanifest.Path("/", testmanifest.ToBundle("site"))),
) + "EXTRA"

// writeWatchProject writes the watch project into dir: its pods answering
// "one" and "other", the page, and the manifests with extra in place of
// EXTRA.
func writeWatchProject(t *testing.T, dir, page, extra string) {
	t.Helper()
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml":        watchProject,
		"pods/answer/main.c": watchAnswer("one"),
		"pods/other/main.c":  watchAnswer("other"),
		"site/index.html":    page,
		"app.yaml":           strings.Replace(watchManifest, "EXTRA", extra, 1),
	})
}

// watchAnswer is the watch project's pod, answering answer.
func watchAnswer(answer string) string { return strings.Replace(watchPod, "ANSWER", answer, 1) }

const extraService = `---
apiVersion: v1
kind: Service
metadata: {name: extra}
spec:
  selector: {app: answer}
  ports: [{port: 81, targetPort: http}]
`

// One serve --watch follows a C project through every kind of edit: a
// pod's source (new module, a restart), a broken build (the old module
// serves on, the error is printed once), its fix, a bundle file (served at
// once, a reload event, no restart), a broken manifest (printed once too),
// and the manifests (an object changed, one pruned). The same process, the same SSE stream throughout.
func TestServeWatchSwapsEdits(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := filepath.Join(t.TempDir(), "live")
	writeWatchProject(t, dir, "<p>page v1</p>\n", extraService)
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, out := serve(t, dir, "--watch")
	answers := func(want string) func() bool {
		return func() bool { _, _, body := get(t, c.IngressURL()+"/api"); return body == want }
	}
	testenv.Eventually(t, "the first answer", answers("one GREETING"))
	reloads := followEvents(t, c.IngressURL()+"/events")
	other := storedPod(t, c, "other").Status.ContainerStatuses[0]

	write("pods/answer/main.c", watchAnswer("two"))
	testenv.Eventually(t, "the new module's answer", answers("two GREETING"))
	// The new instance's status reaches the store as it starts, and the
	// kubelet records the event after it starts the new instance, so the
	// new answer can come before either.
	testenv.Eventually(t, "restart count 1 after the swap", func() bool {
		return storedPod(t, c, "answer").Status.ContainerStatuses[0].RestartCount == 1
	})
	testenv.Eventually(t, "a Killing event for the rebuilt image", func() bool { return hasEvent(c, "answer", "Killing", "rebuilt") })
	if now := storedPod(t, c, "other").Status.ContainerStatuses[0]; now.RestartCount != 0 || !now.State.Running.StartedAt.Equal(&other.State.Running.StartedAt) {
		t.Errorf("the other pod was touched: %+v, was %+v", now, other)
	}

	write("pods/answer/main.c", watchAnswer("three")+"this is not C;\n")
	testenv.Eventually(t, "the compiler's error", func() bool { return strings.Contains(out.String(), "build failed") })
	if _, _, body := get(t, c.IngressURL()+"/api"); body != "two GREETING" {
		t.Errorf("while the build is broken /api = %q, want the last good answer", body)
	}
	if !strings.Contains(out.String(), "main.c:") {
		t.Errorf("the error does not show the compiler's diagnostic:\n%s", out)
	}
	write("pods/answer/main.c", watchAnswer("three"))
	testenv.Eventually(t, "the fixed module's answer", answers("three GREETING"))
	if n := strings.Count(out.String(), "build failed"); n != 1 {
		t.Errorf("the build error was printed %d times, want once:\n%s", n, out)
	}
	restarts := storedPod(t, c, "answer").Status.ContainerStatuses[0].RestartCount

	write("site/index.html", "<p>page v2</p>\n")
	testenv.Eventually(t, "the new page", func() bool {
		_, _, body := get(t, c.IngressURL()+"/")
		return strings.Contains(body, "page v2")
	})
	testenv.Eventually(t, "a reload event", func() bool {
		for {
			select {
			case line := <-reloads:
				if line == "event: reload" {
					return true
				}
			default:
				return false
			}
		}
	})
	if n := storedPod(t, c, "answer").Status.ContainerStatuses[0].RestartCount; n != restarts {
		t.Errorf("a bundle edit restarted the pod: restart count %d, was %d", n, restarts)
	}

	// A manifest error: the build reads the manifests and fails on it,
	// the last good version serves on, and the error is printed once.
	write("app.yaml", strings.Replace(strings.Replace(watchManifest, "containerPort: 7000", "containerPort: 70000", 1), "EXTRA", extraService, 1))
	testenv.Eventually(t, "the manifest's error", func() bool { return strings.Contains(out.String(), "Invalid value: 70000") })
	if _, _, body := get(t, c.IngressURL()+"/api"); body != "three GREETING" {
		t.Errorf("while the manifest is broken /api = %q, want the last good answer", body)
	}

	// The manifest: the pod's env changes (the pod restarts with it), the
	// extra Service leaves the file and the cluster.
	write("app.yaml", strings.Replace(strings.Replace(watchManifest, "value: GREETING", "value: edited", 1), "EXTRA", "", 1))
	testenv.Eventually(t, "the pod on its new env", answers("three edited"))
	testenv.Eventually(t, "the pruned Service gone", func() bool {
		_, ok := c.Get(host.Key{Kind: "Service", Namespace: "default", Name: "extra"})
		return !ok
	})
	testenv.Eventually(t, "the swap line saying what was applied", func() bool {
		return strings.Contains(out.String(), "pod/answer configured, service/extra deleted: serving")
	})
	// Swaps run one at a time: the broken manifest's swap has printed
	// all it had to.
	if n := strings.Count(out.String(), "Invalid value: 70000"); n != 1 {
		t.Errorf("the manifest error was printed %d times, want once:\n%s", n, out)
	}
}

// followEvents reads an SSE stream until the test ends and sends its lines.
func followEvents(t *testing.T, url string) <-chan string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	t.Cleanup(func() { resp.Body.Close() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	return lines
}

func storedPod(t *testing.T, c *host.Cluster, name string) *corev1.Pod {
	t.Helper()
	o, ok := c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name})
	if !ok {
		t.Fatalf("pod %s is not in the store", name)
	}
	p := o.(*corev1.Pod)
	if len(p.Status.ContainerStatuses) == 0 {
		t.Fatalf("pod %s has no container status", name)
	}
	return p
}

func hasEvent(c *host.Cluster, pod, reason, text string) bool {
	for _, o := range c.List("Event", "default") {
		e := o.(*corev1.Event)
		if e.InvolvedObject.Name == pod && e.Reason == reason && strings.Contains(e.Message, text) {
			return true
		}
	}
	return false
}

// The static-site template is ready for the live loop: its page listens to
// the Ingress's kube32.reload stream, which fires when the site is edited
// under serve --watch, and the edit is served.
func TestStaticSiteTemplateReloadsUnderWatch(t *testing.T) {
	dir := newSite(t)
	c, _ := serve(t, dir, "--watch")
	_, _, page := get(t, c.IngressURL()+"/")
	if !strings.Contains(page, `new EventSource("/kube32/reload")`) {
		t.Fatalf("the template's page lacks the reload line:\n%s", page)
	}
	events := followEvents(t, c.IngressURL()+"/kube32/reload")
	index := filepath.Join(dir, "site", "index.html")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(index, []byte(strings.Replace(string(data), "</main>", "<p>edited</p></main>", 1)), 0o644)
	var frame []string
	testenv.Eventually(t, "a reload event naming the bundle", func() bool {
		for {
			select {
			case line := <-events:
				frame = append(frame, line)
				if strings.Contains(strings.Join(frame, "\n"), "event: reload\ndata: {\"bundles\":[\"site\"]}") {
					return true
				}
			default:
				return false
			}
		}
	})
	if _, _, page := get(t, c.IngressURL()+"/"); !strings.Contains(page, "<p>edited</p>") {
		t.Errorf("after the reload event the page is still the old one:\n%s", page)
	}
}

// A Go pod made by `kube32 new` swaps in on an edit of its source, under
// the same serve --watch.
func TestServeWatchGoPod(t *testing.T) {
	testenv.Tool(t, "go")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Chdir(t.TempDir())
	if code, out := run(t, "new", "gopod", "--template", "go-http"); code != 0 {
		t.Fatalf("new: exit %d: %s", code, out)
	}
	dir, _ := filepath.Abs("gopod")
	c, _ := serve(t, dir, "--watch")
	if _, _, body := get(t, c.IngressURL()+"/"); !strings.HasPrefix(body, "hello from gopod\n") {
		t.Fatalf("GET / = %q", body)
	}
	main := filepath.Join(dir, "pods", "gopod", "main.go")
	data, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"%s\n%s %s\n"`, `"edited %s\n%s %s\n"`, 1)
	if edited == string(data) {
		t.Fatal("the template's main.go changed: this test's edit no longer applies")
	}
	os.WriteFile(main, []byte(edited), 0o644)
	testenv.Eventually(t, "the edited Go pod's answer", func() bool {
		_, _, body := get(t, c.IngressURL()+"/")
		return strings.HasPrefix(body, "edited hello from gopod\n")
	})
}
