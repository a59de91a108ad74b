package cli_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

var readyzManifest = testmanifest.Docs(
	testmanifest.Pod("answer", "answer", "env: [{name: GREETING, value: hi}]", "resources: {limits: {memory: 64Ki}}"),
	testmanifest.Service("answer"),
	testmanifest.Ingress("live", testmanifest.Path("/", testmanifest.ToService("answer"))))

// Issue 19, item 6: serve --watch watches the project before its first
// build, so an edit saved as soon as GET /readyz answers 200 (or while the
// cluster starts) is built and served, never recorded as served unseen.
// Ten serves in a row, each edited 0 to 90 ms after its /readyz said ready.
func TestServeWatchServesAnEditMadeRightAfterReadyz(t *testing.T) {
	testenv.Tool(t, "clang")
	pod := watchAnswer
	for i := range 10 {
		dir := filepath.Join(t.TempDir(), "live")
		testenv.WriteFiles(t, dir, map[string]string{
			"kube32.yaml":        "name: live\nmanifests: [app.yaml]\npods:\n  - name: answer\n    language: c\n    source: pods/answer\n",
			"pods/answer/main.c": pod("old"),
			"app.yaml":           readyzManifest,
		})
		apiPort := freePort(t)
		delay := time.Duration(i*10) * time.Millisecond
		edited := make(chan error, 1)
		go func() {
			// Poll /readyz as a script would, then save the edit.
			ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", apiPort)
			for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				resp, err := http.Get(ready)
				if err != nil {
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					time.Sleep(delay)
					edited <- os.WriteFile(filepath.Join(dir, "pods/answer/main.c"), []byte(pod("new")), 0o644)
					return
				}
			}
			edited <- fmt.Errorf("/readyz never answered 200")
		}()
		c, _, stop := testserve.Start(t, dir, "--watch", "--api-port", strconv.Itoa(apiPort))
		if err := <-edited; err != nil {
			t.Fatalf("try %d: %v", i+1, err)
		}
		testenv.Eventually(t, fmt.Sprintf("try %d (edit %v after /readyz): the edited module's answer", i+1, delay), func() bool {
			_, _, body := get(t, c.IngressURL()+"/")
			return body == "new hi"
		})
		stop()
	}
}

// freePort is a loopback port free a moment ago, for a server whose
// address the test must know before the server says it.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
