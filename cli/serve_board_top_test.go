package cli_test

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/host/apis/metricsv1beta1"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// spinPod is the spin test pod (internal/testkit/testpods/c/spin.c): GET /?<n>
// runs n rounds of work.
const spinPod = `
apiVersion: v1
kind: Pod
metadata: {name: spin, labels: {app: spin}}
spec:
  containers: [{name: spin, image: wasm://embedded/spin, resources: {limits: {memory: 64Ki}}}]
`

// serveSpin runs serve --board esp32 (with the extra flags of args) on an
// image tree that holds the spin pod, and waits for the pod to run.
func serveSpin(t *testing.T, args ...string) *host.Cluster {
	t.Helper()
	root := t.TempDir()
	testenv.WriteFiles(t, root, map[string]string{
		"firmware/images/wasm/spin.wasm": string(testpods.Fixture(t, "spin", 65536)),
		"spin.yaml":                      spinPod,
	})
	t.Chdir(t.TempDir())
	c, _ := serve(t, append([]string{"--images", root, "-f", filepath.Join(root, "spin.yaml"), "--board", "esp32"}, args...)...)
	testenv.Eventually(t, "the spin pod to run", func() bool {
		p := podNamed(c, "spin")
		return p != nil && p.Status.Phase == corev1.PodRunning
	})
	return c
}

// spinResult is one request to the spin pod: when it ended, its board
// time (its Server-Timing) and how long the client waited for it.
type spinResult struct {
	end, board, latency time.Duration // end since the load began
}

// spinOnce asks the spin pod for n rounds through its node's pod port and
// returns its board time and how long the answer took.
func spinOnce(t *testing.T, c *host.Cluster, n int) (board, latency time.Duration) {
	req, _ := http.NewRequest(http.MethodGet, c.PodURL()+"/?"+strconv.Itoa(n), nil)
	req.Header.Set(abi.HeaderPod, "default/spin")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, 0
	}
	resp.Body.Close()
	latency = time.Since(start)
	d, on, ok := abi.ParseBoardTiming(resp.Header.Values(abi.HeaderServerTiming))
	if resp.StatusCode != 200 || !ok || on != "esp32" {
		t.Errorf("GET /?%d: %s, Server-Timing %q; want 200 and the board time on esp32", n, resp.Status, resp.Header.Values(abi.HeaderServerTiming))
	}
	return d, latency
}

// TestKubectlTopReportsBoardCPU: under serve --board esp32, kubectl top pod
// reports a pod's CPU as the board would spend it (docs/kubectl.md, "Board
// time"): the board time of the callbacks in the Metrics API's window, which
// each answer's Server-Timing gives, over the window, in millicores of the
// board's core; far above what the host's CPU could be, which is at most
// the time the test waited for the answers. The Metrics API's PodMetrics
// carries the pod's board time in abi.AnnotationBoardTime.
func TestKubectlTopReportsBoardCPU(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	// Each callback is past the default --slow-callback: not this test's
	// subject, so the threshold is above them.
	const slowOver = time.Second
	c := serveSpin(t, "--slow-callback", slowOver.String())
	cacheDir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--server", c.APIURL(), "--cache-dir", cacheDir, "--request-timeout", "20s"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	topSpin := func() (millicores int) {
		t.Helper()
		out := run("top", "pod", "spin", "--no-headers")
		m := regexp.MustCompile(`^spin\s+(\d+)m\s`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("kubectl top pod spin: %q, want spin and its CPU in millicores", out)
		}
		millicores, _ = strconv.Atoi(m[1])
		return millicores
	}

	// A steady load: a request of n rounds every pace, each about a tenth
	// of a second on the board (so more than half its core) and under a
	// millisecond of this host's CPU, so that even a loaded host's waits
	// stay far below.
	const n, pace = 150_000, 180 * time.Millisecond
	var (
		mu      sync.Mutex
		results []spinResult
	)
	begin := time.Now()
	stop := make(chan struct{})
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		tick := time.NewTicker(pace)
		defer tick.Stop()
		for {
			board, latency := spinOnce(t, c, n)
			mu.Lock()
			results = append(results, spinResult{time.Since(begin), board, latency})
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { close(stop); <-loaded }()

	// The first read leaves the node a sample of the pod's CPU; the one a
	// window later averages from it to now.
	time.Sleep(time.Second)
	from0 := time.Since(begin)
	topSpin()
	from1 := time.Since(begin)
	time.Sleep(abi.MetricsWindow + time.Second)
	to0 := time.Since(begin)
	got := topSpin()
	to1 := time.Since(begin)

	// What the answers of the window say, the window taken as between the
	// two reads' midpoints: their board time and how long they were waited
	// for.
	from, to := (from0+from1)/2, (to0+to1)/2
	var board, waited time.Duration
	var count int
	mu.Lock()
	for _, r := range results {
		if r.end > from && r.end <= to {
			board += r.board
			waited += r.latency
			count++
		}
	}
	mu.Unlock()
	window := to - from
	want := abi.Millicores(board, window)
	hostAtMost := abi.Millicores(waited, window)
	t.Logf("window %v: %d requests of %d rounds, board time %v (%v each): %dm on the board; host at most %dm; kubectl top: %dm",
		window.Round(time.Millisecond), count, n, board.Round(time.Millisecond), (board / time.Duration(max(count, 1))).Round(time.Microsecond), want, hostAtMost, got)
	if count < 30 {
		t.Fatalf("only %d requests in the %v window: the load did not run", count, window)
	}
	// The window is sampled (the node's samples, the reads' own time), so
	// the tolerance is generous; a host figure would be many times less.
	if float64(got) < 0.75*float64(want) || float64(got) > 1.25*float64(want) {
		t.Errorf("kubectl top pod spin: %dm, want the board time of the window's callbacks over the window, %dm (±25%%)", got, want)
	}
	if int64(got) < 5*max(hostAtMost, 1) {
		t.Errorf("kubectl top pod spin: %dm, want far above the host's CPU, which is at most %dm (the time the answers were waited for)", got, hostAtMost)
	}

	// The Metrics API with it: the same CPU, and the board time of the
	// recent callbacks in the annotation.
	var pm metricsv1beta1.PodMetrics
	decode(t, run("get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/spin"), &pm)
	cpu := pm.Containers[0].Usage.Cpu().MilliValue()
	if float64(cpu) < 0.75*float64(want) || float64(cpu) > 1.25*float64(want) {
		t.Errorf("Metrics API: spin's CPU is %dm, want about %dm", cpu, want)
	}
	bt, ok := metricsv1beta1.BoardTimeOf(&pm)
	mu.Lock()
	last := results[len(results)-1].board
	mu.Unlock()
	if !ok || bt.Board != "esp32" || bt.Callbacks < count || bt.Slow != 0 || bt.SlowMs != ms(slowOver) ||
		!near(bt.P50Ms, ms(last), 0.05) || !near(bt.P99Ms, ms(last), 0.05) {
		t.Errorf("Metrics API: spin's %s is %+v (found %v); want esp32, at least %d callbacks, none slow past %v, p50 and p99 about %v (every callback does the same work)",
			abi.AnnotationBoardTime, bt, ok, count, slowOver, last)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// near reports whether a is within frac of b.
func near(a, b, frac float64) bool { return a >= b*(1-frac) && a <= b*(1+frac) }
