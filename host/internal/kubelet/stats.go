package kubelet

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
	"weak"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/metricsv1beta1"
	"github.com/kube32/kube32/host/internal/pod"
)

// The node's usage for the Metrics API (docs/kubectl.md), answered on
// abi.NodeStatsPath of its pod port: each pod's linear memory now and its
// CPU averaged over about abi.MetricsWindow, as metrics-server computes it
// from two scrapes. On a node that stands for a board (serve --board) that
// CPU is the board's (pod.Usage): the board time of the callbacks in the
// window, over the window. Each pod's board time (the percentiles of its
// recent callbacks, its slow ones) rides on its PodMetrics as the
// annotation abi.AnnotationBoardTime, for the web view. The node's own
// usage is its pods' only: under serve a node's runtime shares one process
// with every other node and cannot be measured apart.

// cpuSample is a pod's cumulative CPU time at one moment.
type cpuSample struct {
	at  time.Time
	cpu time.Duration
}

// cpuHistory keeps, per pod runtime, a few samples spaced a quarter window
// apart, so that each answer finds one about a window old. It holds the
// runtimes weakly: a deleted pod's runtime, and the module it holds, leave
// memory even if no answer comes to drop its samples.
type cpuHistory struct {
	mu      sync.Mutex
	samples map[weak.Pointer[pod.Pod]][]cpuSample
}

// rate records u and returns the pod's CPU in cores over the window that
// ends now, and that window: from the newest sample at least
// abi.MetricsWindow old, else from the pod's start.
func (h *cpuHistory) rate(p *pod.Pod, u pod.Usage, now time.Time) (cores float64, window time.Duration) {
	key := weak.Make(p)
	kept := h.samples[key]
	base := cpuSample{at: u.Since}
	from := 0
	for i, s := range kept {
		if now.Sub(s.at) >= abi.MetricsWindow {
			base, from = s, i
		}
	}
	kept = kept[from:]
	if len(kept) == 0 || now.Sub(kept[len(kept)-1].at) >= abi.MetricsWindow/4 {
		kept = append(kept, cpuSample{at: now, cpu: u.CPU})
	}
	h.samples[key] = kept
	window = now.Sub(base.at)
	if window <= 0 {
		return 0, 0
	}
	return float64(u.CPU-base.cpu) / float64(window), window
}

// measuredPod is a pod whose usage the node reports: one given to the
// runtime (not one that failed before it, or waits for its image).
type measuredPod struct {
	namespace, name, container string
	pod                        *pod.Pod
}

// measuredPods are the pods the Metrics API (stats) and the resource
// metrics (resourcemetrics.go) count.
func (k *Kubelet) measuredPods() []measuredPod {
	var pods []measuredPod
	k.mu.Lock()
	for key, r := range k.pods {
		if r.failed.Load() == nil {
			pods = append(pods, measuredPod{key.Namespace, key.Name, r.spec.Spec.Containers[0].Name, r.pod})
		}
	}
	k.mu.Unlock()
	return pods
}

// stats is the node's usage and its pods' now.
func (k *Kubelet) stats() metricsv1beta1.NodeStats {
	pods := k.measuredPods()
	now := time.Now()
	stamp := metav1.NewTime(now)
	out := metricsv1beta1.NodeStats{Pods: []metricsv1beta1.PodMetrics{}}
	var nodeCores float64
	var nodeMemory int64
	var nodeWindow time.Duration
	h := &k.cpuHistory
	h.mu.Lock()
	live := map[weak.Pointer[pod.Pod]]bool{}
	if h.samples == nil {
		h.samples = map[weak.Pointer[pod.Pod]][]cpuSample{}
	}
	for _, r := range pods {
		live[weak.Make(r.pod)] = true
		u := r.pod.Usage()
		cores, window := h.rate(r.pod, u, now)
		nodeCores += cores
		nodeMemory += u.MemoryBytes
		nodeWindow = max(nodeWindow, window)
		m := metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Namespace: r.namespace, Name: r.name},
			Timestamp:  stamp, Window: metav1.Duration{Duration: window},
			Containers: []metricsv1beta1.ContainerMetrics{{Name: r.container, Usage: usage(cores, u.MemoryBytes)}},
		}
		if st, ok := r.pod.BoardStats(); ok {
			boardTime(st).Annotate(&m)
		}
		out.Pods = append(out.Pods, m)
	}
	for p := range h.samples {
		if !live[p] {
			delete(h.samples, p)
		}
	}
	h.mu.Unlock()
	if nodeWindow == 0 {
		nodeWindow = abi.MetricsWindow
	}
	out.Node = metricsv1beta1.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: k.cfg.NodeName},
		Timestamp:  stamp, Window: metav1.Duration{Duration: nodeWindow},
		Usage: usage(nodeCores, nodeMemory),
	}
	return out
}

// boardTime is what the Metrics API says of a pod's board time: its
// callbacks' as the pod runtime keeps them (pod.BoardStats).
func boardTime(st pod.BoardStats) metricsv1beta1.BoardTime {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return metricsv1beta1.BoardTime{Board: st.Board, Callbacks: st.Count, P50Ms: ms(st.P50), P99Ms: ms(st.P99),
		Slow: st.Slow, SlowMs: ms(st.SlowOver), TotalMs: ms(st.Total)}
}

// usage is a ResourceList of cores (in nanocores, as metrics-server
// writes them) and bytes.
func usage(cores float64, memory int64) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewScaledQuantity(int64(cores*1e9), resource.Nano),
		corev1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
	}
}

// serveStats answers abi.NodeStatsPath with stats as JSON.
func (k *Kubelet) serveStats(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "only GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(k.stats())
}
