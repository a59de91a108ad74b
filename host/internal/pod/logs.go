package pod

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/termtext"
)

// logCapacity is how many lines a pod keeps for kubectl logs.
const logCapacity = 1000

// ring keeps the last logCapacity lines; safe for concurrent use.
type ring struct {
	mu    sync.Mutex
	lines []Line
	next  int // index of the oldest line once full
	full  bool
}

// add appends a line, dropping the oldest when full.
func (r *ring) add(l Line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		r.lines = append(r.lines, l)
		if len(r.lines) == logCapacity {
			r.full = true
		}
		return
	}
	r.lines[r.next] = l
	r.next = (r.next + 1) % logCapacity
}

// snapshot copies the lines, oldest first.
func (r *ring) snapshot() []Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Line, 0, len(r.lines))
	out = append(out, r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}

// Logs returns the last 1000 lines of the pod's log, oldest first.
func (p *Pod) Logs() []Line { return p.logs.snapshot() }

// log records one line in the ring buffer and passes it to Config.Log,
// its text escaped and cut by termtext.Line: one line, whatever the pod wrote.
func (p *Pod) log(stream string, level int, text string) {
	l := Line{Time: time.Now(), Stream: stream, Level: level, Text: termtext.Line(text), Restart: p.logRestart.Load()}
	p.logs.add(l)
	if p.cfg.Log != nil {
		p.cfg.Log(l)
	}
}

// nodef logs a line of the node about this pod, in the board's "[POD]
// ns/name ..." form. A wazero stack trace follows its error on lines of
// their own: each becomes a line of the log, so that a function name of
// the module cannot start a line of its own choosing.
func (p *Pod) nodef(level int, format string, args ...any) {
	text := "[POD] " + p.id + " " + fmt.Sprintf(format, args...)
	for i, line := range strings.Split(text, "\n") {
		if i == 0 || line != "" {
			p.log("k32", level, line)
		}
	}
}

// lineWriter turns a WASI stream (fd 1 or 2) into log lines.
type lineWriter struct {
	mu     sync.Mutex
	pod    *Pod
	stream string
	level  int
	buf    bytes.Buffer
}

// Write logs each complete line; a partial line waits for its newline, or is
// cut at abi.LogLineMax. b goes into the buffer a line's worth at a time, so
// the buffer never grows past two lines whatever one write holds.
func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if hc := w.pod.hostCosts(); hc != nil {
		w.pod.charge(hc.Log.Of(len(b)))
	}
	for rest := b; len(rest) > 0; {
		n := min(len(rest), abi.LogLineMax)
		w.buf.Write(rest[:n])
		rest = rest[n:]
		for {
			i := bytes.IndexByte(w.buf.Bytes(), '\n')
			if i < 0 {
				if w.buf.Len() < abi.LogLineMax {
					break
				}
				w.emit(string(w.buf.Next(runeCut(w.buf.Bytes(), abi.LogLineMax))))
				continue
			}
			w.emit(string(w.buf.Next(i + 1)[:i]))
		}
	}
	return len(b), nil
}

// flush logs a pending partial line, e.g. when the instance ends.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() > 0 {
		w.emit(w.buf.String())
		w.buf.Reset()
	}
}

func (w *lineWriter) emit(s string) {
	w.pod.log(w.stream, w.level, strings.TrimSuffix(s, "\r"))
}

// runeCut is where to cut b to at most n bytes without splitting a UTF-8
// character: n, or before the character that n would split.
func runeCut(b []byte, n int) int {
	n = min(n, len(b))
	for i := n - 1; i > 0 && i >= n-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:n]) {
				return n
			}
			return i
		}
	}
	return n
}
