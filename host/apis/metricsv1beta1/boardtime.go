package metricsv1beta1

import (
	"encoding/json"

	"github.com/kube32/kube32/abi"
)

// BoardTime is the board time of a pod's callbacks (docs/kubectl.md,
// "Board time"): the value, as JSON, of the annotation
// abi.AnnotationBoardTime on the pod's PodMetrics, which a node writes on
// abi.NodeStatsPath and the Metrics API passes on. kubectl ignores it; the
// web view shows it. Times are in milliseconds, as Server-Timing gives
// them.
type BoardTime struct {
	// Board is the board whose cost model gives the times.
	Board string `json:"board"`
	// Callbacks is how many callbacks were counted since the pod was made.
	Callbacks int `json:"callbacks"`
	// P50Ms and P99Ms are the median and 99th percentile of the recent
	// callbacks.
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
	// Slow is how many callbacks took more than SlowMs (serve
	// --slow-callback) since the pod was made.
	Slow   int     `json:"slow"`
	SlowMs float64 `json:"slowMs"`
	// TotalMs is the board time of all of them.
	TotalMs float64 `json:"totalMs"`
}

// Annotate sets the annotation abi.AnnotationBoardTime of m to bt.
func (bt BoardTime) Annotate(m *PodMetrics) {
	b, _ := json.Marshal(bt) // a struct of strings and numbers: no error
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[abi.AnnotationBoardTime] = string(b)
}

// BoardTimeOf reads the annotation abi.AnnotationBoardTime of m; ok is
// false without one or when it is not BoardTime's JSON.
func BoardTimeOf(m *PodMetrics) (bt BoardTime, ok bool) {
	v, found := m.Annotations[abi.AnnotationBoardTime]
	if !found {
		return BoardTime{}, false
	}
	return bt, json.Unmarshal([]byte(v), &bt) == nil
}
