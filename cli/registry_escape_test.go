package cli_test

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// A registry's error message that would set the window title, clear the
// screen, go back to the start of the line and print a line of its own,
// and the one safe line it must become (docs/serve.md, "Hostile clients").
const (
	hostileRegistryText = "denied \x1b]0;owned\x07\x1b[2J\r\n[INGRESS] all good"
	escapedRegistryText = `denied \x1b]0;owned\a\x1b[2J\r\n[INGRESS] all good`
)

// "Text from outside is escaped" (docs/serve.md, "Hostile clients"): a
// registry that refuses every request with hostileRegistryText reaches
// kube32 push's error, the pulled pod's status and Events (as the store and
// a real kubectl describe show them) and serve's [INGRESS] line about a
// StaticBundle image only as escapedRegistryText: no control character,
// and no line of the output starting with the registry's forged
// "[INGRESS] all good".
func TestRegistryTextReachesNoTerminalRaw(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	reg := testregistry.Start(t, "127.0.0.1:0")
	reg.Refuse(hostileRegistryText)

	good := filepath.Join(t.TempDir(), "good.wasm")
	if err := os.WriteFile(good, testpods.Fixture(t, "good", 65536), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run(t, "push", good, reg.Host+"/app/good:v1")
	if code == 0 || !strings.Contains(out, escapedRegistryText) {
		t.Errorf("kube32 push to a refusing registry: exit %d: %q; want an error quoting %q", code, out, escapedRegistryText)
	}
	checkRegistryOutput(t, "kube32 push's output", out)

	root := t.TempDir()
	testenv.WriteFiles(t, filepath.Join(root, "firmware"), map[string]string{"README": "no images: they are pulled"})
	manifests := filepath.Join(root, "app.yaml")
	testenv.WriteFiles(t, root, map[string]string{"app.yaml": `apiVersion: v1
kind: Pod
metadata: {name: pulled}
spec:
  containers: [{name: c, image: "` + reg.Host + `/app/good:v1"}]
---
` + testmanifest.Docs(testmanifest.Bundle("site", reg.Host+"/web/site:v1"),
		testmanifest.Ingress("site", testmanifest.Path("/", testmanifest.ToBundle("site"))))})

	config := filepath.Join(t.TempDir(), "config")
	t.Chdir(t.TempDir())
	c, served := serve(t, "--images", root, "-f", manifests, "--cache-dir", t.TempDir(), "--kubeconfig", config, "--context", "hostile")

	testenv.Eventually(t, "the pod to wait on its failed pull", func() bool {
		_, message := waitingReason(c)
		return strings.Contains(message, "all good")
	})
	if reason, message := waitingReason(c); !strings.Contains(message, escapedRegistryText) {
		t.Errorf("the pod waits with %s %q; want a message quoting %q", reason, message, escapedRegistryText)
	}
	checkRegistryOutput(t, "the pod's status", podStatusText(pulledPod(c)))
	testenv.Eventually(t, "an Event of the failed pull", func() bool { return hasEvent(c, "pulled", "ErrImagePull", "all good") })
	for _, o := range c.List("Event", "default") {
		if e := o.(*corev1.Event); strings.Contains(e.Message, "all good") {
			if !strings.Contains(e.Message, escapedRegistryText) {
				t.Errorf("Event %s %q does not quote %q", e.Reason, e.Message, escapedRegistryText)
			}
			checkRegistryOutput(t, "Event "+e.Reason, e.Message)
		}
	}

	if status, _, body := get(t, c.IngressURL()+"/"); status != http.StatusServiceUnavailable {
		t.Errorf("GET / of a StaticBundle whose image is refused = %d: %s; want 503", status, body)
	}
	testenv.Eventually(t, "serve's [INGRESS] line about the bundle's pull", func() bool {
		return strings.Contains(served.String(), "[INGRESS] StaticBundle default/site: image ")
	})
	testpods.Contains(t, served.String(), escapedRegistryText)
	checkRegistryOutput(t, "serve's output", served.String())

	cmd := exec.Command(kubectl, "--cache-dir", t.TempDir(), "--context", "hostile", "describe", "pod", "pulled")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+config)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	described, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl describe: %v\n%s", err, stderr.String())
	}
	testpods.Contains(t, string(described), escapedRegistryText)
	checkRegistryOutput(t, "kubectl describe", string(described))
}

// checkRegistryOutput fails t when text holds a control character or a
// line that starts with the registry's forged "[INGRESS] all good".
func checkRegistryOutput(t *testing.T, what, text string) {
	t.Helper()
	checkNoControls(t, what, text)
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "[INGRESS] all good") {
			t.Errorf("%s holds a line forged by the registry: %q", what, line)
		}
	}
}

// podStatusText is every message of a pod's status, a line each.
func podStatusText(p *corev1.Pod) string {
	if p == nil {
		return ""
	}
	text := p.Status.Message
	for _, cs := range p.Status.ContainerStatuses {
		for _, s := range []corev1.ContainerState{cs.State, cs.LastTerminationState} {
			if s.Waiting != nil {
				text += "\n" + s.Waiting.Message
			}
			if s.Terminated != nil {
				text += "\n" + s.Terminated.Message
			}
		}
	}
	return text
}
