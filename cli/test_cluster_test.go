package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
)

// chatProject is an app whose C pod publishes each request's body on the
// channel topic chat, which the Ingress streams as SSE at /events.
var chatProject = map[string]string{
	"kube32.yaml": "name: chat\nmanifests: [app.yaml]\npods:\n  - name: chat\n    language: c\n    source: pods/chat\n",
	"app.yaml": testmanifest.Docs(
		testmanifest.Pod("chat", "chat",
			"resources:\n  requests: {memory: 64Ki, hardware.kube32.io/ipc: \"1\"}\n  limits: {memory: 64Ki}",
			"securityContext:\n  capabilities: {add: [CHANNEL_IPC]}"),
		testmanifest.Service("chat"),
		testmanifest.AnnotatedIngress("chat", map[string]string{"kube32.io/event-stream": "/events=chat"},
			testmanifest.Path("/", testmanifest.ToService("chat")))),
	"pods/chat/chat.c": `#include "k32.h"

static uint8_t body[1024];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    int32_t n = k32_req_read(body, sizeof body);
    if (n < 0 || k32_publish(K32_STR("chat"), body, (uint32_t)n) != 0) {
        return k32_respond(500, "text/plain", K32_STR("not published\n"));
    }
    return k32_respond(202, "text/plain", K32_STR("published\n"));
}
`,
	"tests/chat.hurl": `POST {{ingress}}/say
{"type": "chat", "text": "hi"}
HTTP 202
[Asserts]
sse "/events" "chat" jsonpath "$.text" == "hi"
pod "chat" restarts == 0
pod "default/chat" phase == "Running"
event "chat" "Started" contains "Started container chat"
`,
}

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// kube32's own queries, against the real cluster: the SSE event a pod
// published because of the request, the pod's restarts and phase, and the
// kubelet's Event; and when one does not hold, the message says what came.
func TestKube32TestSSEPodAndEventQueries(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := writeProject(t, chatProject)
	if code, out := run(t, "test", dir); code != 0 || !strings.Contains(out, "PASS tests/chat.hurl:1 POST /say (board time ") {
		t.Fatalf("kube32 test: exit %d, want 0 and a PASS line:\n%s", code, out)
	}

	wrong := `POST {{ingress}}/say
{"type": "chat", "text": "hi"}
HTTP 202
[Asserts]
sse "/events" "chat" jsonpath "$.text" == "bye"
pod "chat" restarts > 0
event "chat" "BackOff" exists
`
	if err := os.WriteFile(filepath.Join(dir, "tests", "chat.hurl"), []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run(t, "test", dir, "--wait", "1s")
	for _, want := range []string{
		"FAIL tests/chat.hurl:1 POST /say (board time ",
		`    tests/chat.hurl:5: expected sse "/events" "chat" jsonpath "$.text" == "bye", got "hi"` + "\n",
		"    tests/chat.hurl:6: expected pod \"chat\" restarts > 0, got 0 (within 1s)\n",
		"    tests/chat.hurl:7: expected event \"chat\" \"BackOff\" exists, got nothing (within 1s)\n",
		"    answer: 202 Accepted, Content-Type text/plain, body \"published\\n\"\n",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d (want 1); output lacks %q:\n%s", code, want, out)
		}
	}
}

// test takes serve's cluster flags: with --nodes 2 the chat pod, pinned to
// the worker, publishes there and the control plane's Ingress streams the
// message; --board fits the build and the nodes to the board.
func TestKube32TestTakesServesClusterFlags(t *testing.T) {
	testenv.Tool(t, "clang")
	files := map[string]string{}
	for k, v := range chatProject {
		files[k] = v
	}
	files["app.yaml"] = strings.Replace(chatProject["app.yaml"], "spec:\n  containers:", "spec:\n  nodeSelector: {kubernetes.io/hostname: kube32-worker-1}\n  containers:", 1)
	files["tests/chat.hurl"] += `pod "chat" node == "kube32-worker-1"` + "\n"
	dir := writeProject(t, files)
	code, out := run(t, "test", dir, "--nodes", "2", "--board", "esp32")
	if code != 0 || !strings.Contains(out, "PASS tests/chat.hurl:1 POST /say (board time ") || !strings.Contains(out, "\nfit for board esp32: ok\n") {
		t.Fatalf("kube32 test --nodes 2 --board esp32: exit %d, want 0, a PASS line and the build fitted to esp32:\n%s", code, out)
	}
}
