package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// The web view tells a swap from a crash. serve --watch swaps a rebuilt
// module into the c-http template's pod: the container is restarted as a
// kubelet restarts one whose image changed (restartCount 1, lastState
// Completed with exit code 0, docs/serve.md), and the view, open in
// headless Chromium, shows the restart as "updated", not as a crash; a
// crash of the new module then shows as one ("Error").
func TestServeWatchSwapShowsUpdatedInTheWebView(t *testing.T) {
	testenv.Tool(t, "chromium") // before the project is built
	newApp(t, "c-http", "app")
	dir, _ := filepath.Abs("app")
	c, _ := serve(t, dir, "--watch")

	page := openDevTools(t)
	page.call(t, "Page.navigate", map[string]any{"url": c.APIURL() + "/ui/"})
	restarts := func(want string) {
		t.Helper()
		testenv.EventuallyNil(t, "the pod's restarts "+want+" in the web view", func() error {
			got, err := page.evalErr(`document.querySelector('#pods tr[data-pod="default/app"] td:nth-child(3)')?.textContent ?? "no row"`)
			if err == nil && got != want {
				err = fmt.Errorf("the Restarts cell reads %q", got)
			}
			return err
		})
	}
	restarts("0")

	// A new module that answers the same, and traps on /crash.
	source := filepath.Join(dir, "pods", "app", "main.c")
	b, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	const crash = "K32_EXPORT(k32_handle) int32_t k32_handle(void) {\n" +
		"    char path[16];\n" +
		"    if (k32_req_path(path, sizeof path) == 6 && path[1] == 'c') __builtin_trap();\n"
	edited := strings.Replace(string(b), "K32_EXPORT(k32_handle) int32_t k32_handle(void) {\n", crash, 1)
	if edited == string(b) {
		t.Fatal("the template's main.c has no k32_handle line to edit: this test's edit no longer applies")
	}
	if err := os.WriteFile(source, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	restarts("1 (updated)")
	cs := storedPod(t, c, "app").Status.ContainerStatuses[0]
	if end := cs.LastTerminationState.Terminated; cs.RestartCount != 1 || end == nil || end.Reason != "Completed" || end.ExitCode != 0 ||
		!strings.HasPrefix(end.Message, "image rebuilt") {
		t.Fatalf("after the swap the container status is %+v, want restartCount 1 and lastState.terminated Completed, exit code 0, image rebuilt", cs)
	}
	if title := page.eval(t, `document.querySelector('#pods tr[data-pod="default/app"] td:nth-child(3)').title`); !strings.Contains(title, "Completed, exit code 0: image rebuilt") {
		t.Errorf("the Restarts cell's tooltip is %q, want the swap's end", title)
	}

	if code, _, body := get(t, c.IngressURL()+"/crash"); code != 500 {
		t.Fatalf("GET /crash: %d %q, want 500 from the trap", code, body)
	}
	restarts("2 (Error)")
}
