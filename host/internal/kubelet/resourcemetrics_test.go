package kubelet

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// exposition is one scrape of /metrics/resource: each sample's value and
// timestamp by series (name and labels as written), and each family's
// type.
type exposition struct {
	value map[string]float64
	at    map[string]int64 // ms; absent for a sample without one
	kind  map[string]string
}

// The text format's lines as a kubelet writes them (HELP, TYPE, samples
// with sorted labels); anything else fails the test.
var (
	helpLine   = regexp.MustCompile(`^# HELP ([a-z_]+) \S.*$`)
	typeLine   = regexp.MustCompile(`^# TYPE ([a-z_]+) (counter|gauge)$`)
	sampleLine = regexp.MustCompile(`^([a-z_]+)(\{(?:[a-z_]+="(?:[^"\\\n]|\\.)*"(?:,|\}))+)? (\S+)(?: (-?[0-9]+))?$`)
)

// scrape GETs the handler's exposition and parses it strictly.
func scrape(t *testing.T, url string) exposition {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics/resource: %s %q %v", resp.Status, b, err)
	}
	body := string(b)
	if ct := resp.Header.Get("Content-Type"); ct != ResourceMetricsContentType {
		t.Errorf("Content-Type %q, want %q", ct, ResourceMetricsContentType)
	}
	e := exposition{value: map[string]float64{}, at: map[string]int64{}, kind: map[string]string{}}
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if m := typeLine.FindStringSubmatch(line); m != nil {
			e.kind[m[1]] = m[2]
			continue
		}
		if helpLine.MatchString(line) {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a line of the text format: %q in\n%s", line, body)
		}
		if e.kind[m[1]] == "" {
			t.Errorf("sample %q before its family's TYPE line", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("sample %q: value: %v", line, err)
		}
		series := m[1] + m[2]
		if _, dup := e.value[series]; dup {
			t.Errorf("series %s written twice", series)
		}
		e.value[series] = v
		if m[4] != "" {
			e.at[series], _ = strconv.ParseInt(m[4], 10, 64)
		}
	}
	return e
}

// need returns the value of series, failing t when it is missing.
func (e exposition) need(t *testing.T, series string) float64 {
	t.Helper()
	v, ok := e.value[series]
	if !ok {
		t.Fatalf("no series %s in %v", series, e.value)
	}
	return v
}

func containerSeries(name, pod string) string {
	return fmt.Sprintf(`%s{container="main",namespace="default",pod="%s"}`, name, pod)
}

// TestResourceMetricsAreCumulativeAsMetricsServerReadsThem checks the
// kubelet's /metrics/resource of real C pods: the series metrics-server
// reads, each CPU a cumulative counter in seconds that grows by the time
// a pod's callback ran, memory the pod's linear memory, and the node's
// counter never going down when a pod is deleted (metrics-server drops a
// node whose counter decreases).
func TestResourceMetricsAreCumulativeAsMetricsServerReadsThem(t *testing.T) {
	n := startNode(t, imageTree(map[string][]byte{"relay": testpods.Fixture(t, "relay", 65536)}))
	srv := httptest.NewServer(n.kubelet.ResourceMetrics())
	t.Cleanup(srv.Close)
	url := srv.URL + "/metrics/resource"
	for _, name := range []string{"a", "b"} {
		n.store.Apply(relayPod("default", name))
		n.waitPhase(t, name, "Running")
	}

	before := time.Now().UnixMilli()
	first := scrape(t, url)
	for name, kind := range map[string]string{
		"container_cpu_usage_seconds_total": "counter", "container_memory_working_set_bytes": "gauge", "container_start_time_seconds": "gauge",
		"node_cpu_usage_seconds_total": "counter", "node_memory_working_set_bytes": "gauge",
		"pod_cpu_usage_seconds_total": "counter", "pod_memory_working_set_bytes": "gauge",
		"resource_scrape_error": "gauge", "scrape_error": "gauge",
	} {
		if first.kind[name] != kind {
			t.Errorf("family %s has TYPE %q, want %q", name, first.kind[name], kind)
		}
	}
	if first.need(t, "scrape_error") != 0 || first.need(t, "resource_scrape_error") != 0 {
		t.Errorf("scrape_error %v, resource_scrape_error %v, want 0", first.value["scrape_error"], first.value["resource_scrape_error"])
	}
	var memory float64
	for _, name := range []string{"a", "b"} {
		n.kubelet.mu.Lock()
		u := n.kubelet.pods[store.Key{Kind: "Pod", Namespace: "default", Name: name}].pod.Usage()
		n.kubelet.mu.Unlock()
		mem := first.need(t, containerSeries("container_memory_working_set_bytes", name))
		if mem != float64(u.MemoryBytes) || mem <= 0 {
			t.Errorf("pod %s: memory %v, want its linear memory %d", name, mem, u.MemoryBytes)
		}
		memory += mem
		if start := first.need(t, containerSeries("container_start_time_seconds", name)); math.Abs(start-float64(u.Since.UnixNano())/1e9) > 1e-6 {
			t.Errorf("pod %s: start time %v, want when its runtime was made %v", name, start, u.Since)
		}
		series := containerSeries("container_cpu_usage_seconds_total", name)
		if cpu := first.need(t, series); cpu <= 0 {
			t.Errorf("pod %s: CPU %v; metrics-server drops a pod whose counter is 0", name, cpu)
		}
		if at := first.at[series]; at < before || at > time.Now().UnixMilli() {
			t.Errorf("pod %s: CPU stamped %d ms, want the time of the scrape (%d ms or later)", name, at, before)
		}
		if _, stamped := first.at[containerSeries("container_start_time_seconds", name)]; stamped {
			t.Errorf("pod %s: container_start_time_seconds has a timestamp; the kubelet writes none", name)
		}
	}
	if got := first.need(t, "node_memory_working_set_bytes"); got != memory {
		t.Errorf("node memory %v, want its pods' %v", got, memory)
	}

	// Pod a's callback spins 300 ms of its millisecond clock, so runs
	// more than 299 ms: its counter grows by that, and so do its pod's and
	// the node's. Pod b runs a little too, to count after it is gone.
	n.relay(t, "default/a", "spin 300\n")
	n.relay(t, "default/b", "spin 20\n")
	second := scrape(t, url)
	cpuA := containerSeries("container_cpu_usage_seconds_total", "a")
	if grew := second.need(t, cpuA) - first.need(t, cpuA); grew < 0.299 {
		t.Errorf("pod a's CPU grew by %vs over a 300 ms callback", grew)
	}
	if pod := second.need(t, `pod_cpu_usage_seconds_total{namespace="default",pod="a"}`); pod != second.need(t, cpuA) {
		t.Errorf("pod a's pod CPU %v, want its one container's %v", pod, second.value[cpuA])
	}
	cpuB := containerSeries("container_cpu_usage_seconds_total", "b")
	sum := second.need(t, cpuA) + second.need(t, cpuB)
	if node := second.need(t, "node_cpu_usage_seconds_total"); math.Abs(node-sum) > 1e-6 {
		t.Errorf("node CPU %v, want its pods' %v", node, sum)
	}
	if second.at[cpuA] < first.at[cpuA] {
		t.Errorf("pod a's second sample is stamped %d, before the first (%d)", second.at[cpuA], first.at[cpuA])
	}

	// Deleted, pod b leaves the exposition but its CPU stays in the node's.
	n.store.Delete(store.Key{Kind: "Pod", Namespace: "default", Name: "b"})
	var third exposition
	testenv.Eventually(t, "pod b to leave /metrics/resource", func() bool {
		third = scrape(t, url)
		_, ok := third.value[cpuB]
		return !ok
	})
	if node, least := third.need(t, "node_cpu_usage_seconds_total"), third.need(t, cpuA)+second.value[cpuB]; node < least-1e-6 {
		t.Errorf("node CPU %v after pod b was deleted, want at least pod a's now and pod b's last, %v", node, least)
	}
}

// TestResourceMetricsAnswersOnlyReads checks that /metrics/resource takes
// no writes.
func TestResourceMetricsAnswersOnlyReads(t *testing.T) {
	n := startNode(t, imageTree(nil))
	srv := httptest.NewServer(n.kubelet.ResourceMetrics())
	t.Cleanup(srv.Close)
	if r := testhttp.Post(t, srv.URL+"/metrics/resource", "x"); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s, want 405", r)
	}
	// A node without pods still answers, with its own series: no memory,
	// and the least CPU counter.
	e := scrape(t, srv.URL+"/metrics/resource")
	if cpu, mem := e.need(t, "node_cpu_usage_seconds_total"), e.need(t, "node_memory_working_set_bytes"); cpu != 1e-9 || mem != 0 {
		t.Errorf("a node without pods has CPU %vs and memory %v, want 1e-09 and 0", cpu, mem)
	}
}
