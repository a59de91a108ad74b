package podlog

import (
	"bufio"
	"io"
	"net/http"
	"time"

	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/termtext"
)

// aliveCheck is how often a followed log asks whether its pod still runs.
const aliveCheck = 250 * time.Millisecond

// Write answers 200 with lines as plain text, then with o.Follow the lines
// of next until the client goes, next closes or alive (nil: always)
// reports the pod gone: deleted, or replaced by another. It stops after
// o.LimitBytes bytes. A caller that follows counts the request as a
// stream of its connection budget first (httplimit.Stream).
func Write(w http.ResponseWriter, r *http.Request, lines []pod.Line, next <-chan pod.Line, o Options, alive func() bool) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	out := &writer{buf: bufio.NewWriter(w), timestamps: o.Timestamps, left: -1}
	if o.LimitBytes != nil {
		out.left = *o.LimitBytes
	}
	for _, l := range lines {
		if !out.line(l) {
			break
		}
	}
	out.buf.Flush()
	if !o.Follow || out.left == 0 {
		return
	}
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	check := time.NewTicker(aliveCheck)
	defer check.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case l, ok := <-next:
			if !ok {
				return
			}
			more := out.line(l)
			out.buf.Flush()
			if flusher != nil {
				flusher.Flush()
			}
			if !more {
				return
			}
		case <-check.C:
			if alive != nil && !alive() {
				return
			}
		}
	}
}

// writer writes log lines up to a byte budget.
type writer struct {
	buf        *bufio.Writer
	timestamps bool
	// left is how many bytes may still be written; -1 for no limit.
	left int64
}

// line writes one line, cut at the budget; it reports whether there is
// budget left.
func (w *writer) line(l pod.Line) bool {
	text := termtext.Line(l.Text) + "\n" // one line, whoever wrote it
	if w.timestamps {
		text = l.Time.UTC().Format(time.RFC3339Nano) + " " + text
	}
	if w.left >= 0 && int64(len(text)) >= w.left {
		text = text[:w.left]
		w.left = 0
	} else if w.left > 0 {
		w.left -= int64(len(text))
	}
	_, _ = io.WriteString(w.buf, text)
	return w.left != 0
}
