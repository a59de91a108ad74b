package cli_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// spinImages is an image tree with the spin test pod
// (internal/testkit/testpods/c/spin.c) and a manifest that runs it.
func spinImages(t *testing.T) (root, manifest string) {
	t.Helper()
	root = t.TempDir()
	testenv.WriteFiles(t, root, map[string]string{"firmware/images/wasm/spin.wasm": string(testpods.Fixture(t, "spin", 65536))})
	manifest = filepath.Join(root, "spin.yaml")
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: spin}\nspec:\n  containers: [{name: spin, image: wasm://embedded/spin, resources: {limits: {memory: 64Ki}}}]\n"
	if err := os.WriteFile(manifest, []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, manifest
}

// spin asks the spin pod for n rounds of work and returns the status, the
// board time its answer reports (0 for none) and the body.
func spin(t *testing.T, c *host.Cluster, n int) (int, time.Duration, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/?%d", c.PodURL(), n), nil)
	req.Header.Set(abi.HeaderPod, "default/spin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	d, _, _ := abi.ParseBoardTiming(resp.Header.Values(abi.HeaderServerTiming))
	return resp.StatusCode, d, string(body)
}

// Under --board-clock, --handler-timeout counts board time: a callback
// that would take the esp32 about 3 s is stopped at 300 ms of board
// time, as the board's watchdog stops it, though it runs here in a few
// milliseconds; the pod answers again on a fresh instance. Without
// --board-clock the same callback answers, and --slow-callback names it in
// a [POD] line (docs/boards.md, "Time on the board").
func TestBoardClockStopsACallbackByItsBoardTime(t *testing.T) {
	const rounds = 4_000_000
	root, manifest := spinImages(t)
	t.Chdir(t.TempDir())
	const handlerTimeout = 300 * time.Millisecond
	args := []string{"--images", root, "-f", manifest, "--board", "esp32", "--handler-timeout", handlerTimeout.String(), "--slow-callback", "50ms"}

	t.Run("without --board-clock", func(t *testing.T) {
		c, out := serve(t, args...)
		waitPodAnswers(t, c)
		code, board, body := spin(t, c, rounds)
		if code != http.StatusOK || board < 3*handlerTimeout {
			t.Fatalf("?%d: %d after %s of board time: %s; want 200 after well over --handler-timeout", rounds, code, board, body)
		}
		want := fmt.Sprintf("[POD] default/spin k32_handle of GET /?%d took ", rounds)
		testenv.Eventually(t, "the slow callback's [POD] line", func() bool { return strings.Contains(out.String(), want) })
		line := out.String()[strings.Index(out.String(), want):]
		if line, _, _ = strings.Cut(line, "\n"); !strings.Contains(line, "s on the board (esp32, ") || !strings.HasSuffix(line, " instructions), over 50ms") {
			t.Errorf("the [POD] line does not name the board, the instructions and the threshold: %q", line)
		}
		if code, _, _ := spin(t, c, 1000); code != http.StatusOK {
			t.Errorf("a small request after it: %d", code)
		}
		if strings.Contains(out.String(), "k32_handle of GET /?1000 took") {
			t.Errorf("a callback under the threshold was logged as slow:\n%s", out)
		}
	})

	t.Run("with --board-clock", func(t *testing.T) {
		c, out := serve(t, append(args, "--board-clock")...)
		waitPodAnswers(t, c)
		code, board, body := spin(t, c, rounds)
		if code != http.StatusGatewayTimeout || !strings.Contains(body, "k32_handle exceeded 300ms of board time on esp32 (--board-clock)") {
			t.Fatalf("?%d: %d %s; want 504 naming 300ms of board time", rounds, code, body)
		}
		if board <= 300*time.Millisecond || board > 400*time.Millisecond {
			t.Errorf("the 504 reports %s of board time; the board's watchdog stops the callback just past 300ms", board)
		}
		testenv.Eventually(t, "the pod to answer again", func() bool { code, _, _ := spin(t, c, 1000); return code == http.StatusOK })
		if code, board, _ := spin(t, c, 1000); code != http.StatusOK || board <= 0 || board > 300*time.Millisecond {
			t.Errorf("a small request after it: %d after %s of board time", code, board)
		}
		if !strings.Contains(out.String(), "DeadlineExceeded") && !strings.Contains(out.String(), "exceeded 300ms of board time") {
			t.Errorf("serve's output does not tell of the stop:\n%s", out)
		}
	})
}

// --board-clock needs a board to keep the clock of.
func TestBoardClockNeedsABoard(t *testing.T) {
	root, manifest := spinImages(t)
	t.Chdir(t.TempDir())
	code, out := testserve.Run(t, "serve", "--images", root, "-f", manifest, "--board-clock")
	if code == 0 || !strings.Contains(out, "--board-clock runs the pods on a board's clock: name the board with --board") {
		t.Fatalf("serve --board-clock without a board: exit %d\n%s", code, out)
	}
}

// waitPodAnswers waits until the spin pod answers.
func waitPodAnswers(t *testing.T, c *host.Cluster) {
	t.Helper()
	testenv.Eventually(t, "pod spin to answer", func() bool { code, _, _ := spin(t, c, 1); return code == http.StatusOK })
}
