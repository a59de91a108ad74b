package kubelet

import (
	"fmt"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"golang.org/x/time/rate"
)

// A pod's log lines pass a rate limit (abi.LogBurstLines and the rest,
// docs/limits.md) before they reach the node's log (serve's output) and
// the history kept for kubectl logs, so a pod that logs in a loop costs
// the node a bounded amount of output and memory.

// logMarkerInterval spaces the "[LOG] N lines dropped" markers.
const logMarkerInterval = time.Second

// podLog is one pod's log on this node: the lines its rate limit lets
// through, in one order for the node's Config.Log, the pod's followers
// and the history kept for kubectl logs; and a marker line that counts the
// lines it dropped.
type podLog struct {
	k   *Kubelet
	key store.Key

	mu         sync.Mutex
	lines      *rate.Limiter // in lines
	bytes      *rate.Limiter // in bytes of text
	history    history
	dropped    int       // lines dropped since the last marker
	restart    int32     // the Line.Restart of the last line, which a marker takes
	lastMarker time.Time // when the last marker was written
	marker     *time.Timer
}

func newPodLog(k *Kubelet, key store.Key) *podLog {
	return &podLog{
		k:     k,
		key:   key,
		lines: rate.NewLimiter(abi.LogRateLines, abi.LogBurstLines),
		bytes: rate.NewLimiter(abi.LogRateBytes, abi.LogBurstBytes),
	}
}

// write passes one of the pod's lines, or drops it once the pod has spent
// its budget. The first line let through after drops is preceded by the
// marker, unless one was written less than logMarkerInterval ago; a timer
// writes the marker of drops that no line follows.
func (l *podLog) write(line pod.Line) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.restart = line.Restart
	size := min(len(line.Text), abi.LogBurstBytes)
	if l.lines.TokensAt(now) < 1 || l.bytes.TokensAt(now) < float64(size) {
		l.dropped++
		if l.marker == nil {
			var t *time.Timer
			t = time.AfterFunc(logMarkerInterval, func() { l.writeMarker(t) })
			l.marker = t
		}
		return
	}
	l.lines.AllowN(now, 1)
	l.bytes.AllowN(now, size)
	if l.dropped > 0 && now.Sub(l.lastMarker) >= logMarkerInterval {
		l.writeMarkerLocked(now)
	}
	l.deliver(line)
}

// writeMarker is the function of the marker timer t. A line let through
// may have written the marker and stopped t as it fired: then t is no
// longer l.marker, and it does nothing.
func (l *podLog) writeMarker(t *time.Timer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.marker != t {
		return
	}
	l.marker = nil
	if l.dropped > 0 {
		l.writeMarkerLocked(time.Now())
	}
}

func (l *podLog) writeMarkerLocked(now time.Time) {
	noun := "lines"
	if l.dropped == 1 {
		noun = "line"
	}
	text := fmt.Sprintf("[LOG] %d %s dropped (rate limit)", l.dropped, noun)
	l.dropped, l.lastMarker = 0, now
	if l.marker != nil {
		l.marker.Stop()
		l.marker = nil
	}
	l.deliver(pod.Line{Time: now, Stream: "k32", Level: 2, Text: text, Restart: l.restart})
}

// deliver hands line to every consumer; l.mu keeps them in one order.
func (l *podLog) deliver(line pod.Line) {
	l.history.add(line)
	if l.k.cfg.Log != nil {
		l.k.cfg.Log(l.key.Namespace, l.key.Name, line)
	}
	l.k.logs.publish(l.key, line)
}

// follow returns the kept lines and starts following the pod, at one
// instant: no line is both in the snapshot and sent, none is lost.
func (l *podLog) follow() (lines []pod.Line, id int, next chan pod.Line) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, next = l.k.logs.add(l.key)
	return l.history.snapshot(), id, next
}

// history keeps the last lines of a pod, at most abi.LogHistoryLines lines
// and abi.LogHistoryBytes bytes of text.
type history struct {
	lines []pod.Line
	bytes int
}

func (h *history) add(line pod.Line) {
	h.lines = append(h.lines, line)
	h.bytes += len(line.Text)
	for len(h.lines) > abi.LogHistoryLines || h.bytes > abi.LogHistoryBytes {
		h.bytes -= len(h.lines[0].Text)
		h.lines[0] = pod.Line{}
		h.lines = h.lines[1:]
	}
}

func (h *history) snapshot() []pod.Line {
	return append([]pod.Line(nil), h.lines...)
}
