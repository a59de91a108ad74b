package kubelet

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kube32/kube32/host/internal/pod"
)

// The node's usage as a kubelet's /metrics/resource gives it: the
// Prometheus text that metrics-server scrapes on a Kubernetes cluster to
// answer `kubectl top` (docs/kubectl.md). The figures are those of the
// Metrics API (stats.go), except that CPU is the cumulative time in
// seconds, not a rate: metrics-server takes the rate itself from two
// scrapes, and drops a node or a container whose counter goes down or is
// zero. A pod that has not run a callback yet has used no CPU at all, so
// every counter reads at least a nanosecond: metrics-server takes 0 for a
// figure the kubelet lacks, and `kubectl top` would leave the pod out
// rather than show it at 0m.

// ResourceMetricsContentType is the Prometheus text format's media type,
// as a kubelet sends it.
const ResourceMetricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// ResourceMetrics answers GET /metrics/resource with the node's and its
// pods' CPU time and memory, each sample stamped with when it was read.
func (k *Kubelet) ResourceMetrics() http.Handler {
	return &resourceMetrics{k: k, seen: map[*pod.Pod]time.Duration{}}
}

// resourceMetrics remembers the CPU time each pod had at the last answer,
// so that a pod that is gone since still counts in the node's counter,
// which must never go down.
type resourceMetrics struct {
	k    *Kubelet
	mu   sync.Mutex
	seen map[*pod.Pod]time.Duration // each pod runtime's CPU at the last answer
	gone time.Duration              // the CPU of the runtimes gone since an answer
}

func (m *resourceMetrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "only GET", http.StatusMethodNotAllowed)
		return
	}
	body := m.exposition()
	w.Header().Set("Content-Type", ResourceMetricsContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// podSample is a pod's usage and when it was read.
type podSample struct {
	measuredPod
	usage pod.Usage
	at    time.Time
}

// exposition reads every pod's usage and writes it in the text format, the
// families in name order and the labels sorted, as the kubelet's library
// writes them.
func (m *resourceMetrics) exposition() []byte {
	pods := m.k.measuredPods()
	sort.Slice(pods, func(i, j int) bool {
		if pods[i].namespace != pods[j].namespace {
			return pods[i].namespace < pods[j].namespace
		}
		return pods[i].name < pods[j].name
	})
	samples := make([]podSample, len(pods))
	for i, p := range pods {
		samples[i] = podSample{p, p.pod.Usage(), time.Now()}
	}

	m.mu.Lock()
	seen := make(map[*pod.Pod]time.Duration, len(samples))
	nodeCPU := m.gone
	var nodeMemory int64
	for _, s := range samples {
		seen[s.pod] = s.usage.CPU
		nodeCPU += s.usage.CPU
		nodeMemory += s.usage.MemoryBytes
	}
	for p, cpu := range m.seen {
		if _, ok := seen[p]; !ok {
			m.gone += cpu
			nodeCPU += cpu
		}
	}
	m.seen = seen
	m.mu.Unlock()
	nodeAt := time.Now()

	var b bytes.Buffer
	containerLabels := func(s podSample) string {
		return fmt.Sprintf(`{container="%s",namespace="%s",pod="%s"}`, labelValue(s.container), labelValue(s.namespace), labelValue(s.name))
	}
	podLabels := func(s podSample) string {
		return fmt.Sprintf(`{namespace="%s",pod="%s"}`, labelValue(s.namespace), labelValue(s.name))
	}
	family(&b, "container_cpu_usage_seconds_total", "counter", "[STABLE] Cumulative cpu time consumed by the container in core-seconds", samples,
		func(s podSample) (string, float64, time.Time) {
			return containerLabels(s), cpuSeconds(s.usage.CPU), s.at
		})
	family(&b, "container_memory_working_set_bytes", "gauge", "[STABLE] Current working set of the container in bytes", samples,
		func(s podSample) (string, float64, time.Time) {
			return containerLabels(s), float64(s.usage.MemoryBytes), s.at
		})
	// Without a timestamp, as the kubelet writes it. CPU counts from the
	// runtime's start, across restarts of its instance, so that is the
	// container's start: a later one tells metrics-server that the counter
	// began again.
	family(&b, "container_start_time_seconds", "gauge", "[STABLE] Start time of the container since unix epoch in seconds", samples,
		func(s podSample) (string, float64, time.Time) {
			return containerLabels(s), float64(s.usage.Since.UnixNano()) / 1e9, time.Time{}
		})
	node := []podSample{{at: nodeAt}}
	family(&b, "node_cpu_usage_seconds_total", "counter", "[STABLE] Cumulative cpu time consumed by the node in core-seconds", node,
		func(s podSample) (string, float64, time.Time) { return "", cpuSeconds(nodeCPU), s.at })
	family(&b, "node_memory_working_set_bytes", "gauge", "[STABLE] Current working set of the node in bytes", node,
		func(s podSample) (string, float64, time.Time) { return "", float64(nodeMemory), s.at })
	// A pod has one container: the pod's figures are its container's.
	family(&b, "pod_cpu_usage_seconds_total", "counter", "[STABLE] Cumulative cpu time consumed by the pod in core-seconds", samples,
		func(s podSample) (string, float64, time.Time) {
			return podLabels(s), cpuSeconds(s.usage.CPU), s.at
		})
	family(&b, "pod_memory_working_set_bytes", "gauge", "[STABLE] Current working set of the pod in bytes", samples,
		func(s podSample) (string, float64, time.Time) {
			return podLabels(s), float64(s.usage.MemoryBytes), s.at
		})
	// Reading the usage cannot fail here; the kubelet writes both names.
	none := func(podSample) (string, float64, time.Time) { return "", 0, time.Time{} }
	family(&b, "resource_scrape_error", "gauge", "[STABLE] 1 if there was an error while getting container metrics, 0 otherwise", node, none)
	family(&b, "scrape_error", "gauge", "[ALPHA] (Deprecated since 1.29.0) 1 if there was an error while getting container metrics, 0 otherwise", node, none)
	return b.Bytes()
}

// family writes one metric family: its HELP and TYPE lines and a sample
// per item, each with its labels, value and timestamp in milliseconds (none
// for a zero time). A family without samples is left out.
func family(b *bytes.Buffer, name, kind, help string, items []podSample, sample func(podSample) (labels string, value float64, at time.Time)) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
	for _, it := range items {
		labels, value, at := sample(it)
		b.WriteString(name + labels + " " + strconv.FormatFloat(value, 'g', -1, 64))
		if !at.IsZero() {
			b.WriteString(" " + strconv.FormatInt(at.UnixMilli(), 10))
		}
		b.WriteByte('\n')
	}
}

// cpuSeconds is a CPU counter's value: seconds, at least a nanosecond.
func cpuSeconds(d time.Duration) float64 {
	return max(d, time.Nanosecond).Seconds()
}

// labelValue escapes a label value as the text format requires. Object
// names cannot hold these characters; the escape keeps the text parseable
// whatever a name holds.
var labelValue = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace
