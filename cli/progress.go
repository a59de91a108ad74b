package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kube32/kube32/bundler"
)

// progressTick is how often the elapsed time of the step being built is
// redrawn.
const progressTick = 100 * time.Millisecond

// eraseLine moves a terminal's cursor to the start of its line and clears it.
const eraseLine = "\r\033[K"

// progress draws a build's steps on a terminal: the step being built on
// one line with its elapsed time counting ("pod api: building (go)… 3.2s"),
// replaced once it is done by "pod api: built build/… (3.2s)". When another
// writer shares the terminal (the compiler commands of -v), each step is a
// line of its own instead of being redrawn.
type progress struct {
	w       io.Writer
	inPlace bool

	mu      sync.Mutex
	line    string // the started step's line; "" when none
	started time.Time
	stop    chan struct{} // closed to end the redrawing of line
}

// step is the bundler.BuildOptions.Progress callback.
func (p *progress) step(s bundler.Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.State == bundler.StepStarted || s.State == bundler.StepOptimizing {
		p.endLocked("")
		p.line = s.String()
		if s.State == bundler.StepStarted { // optimizing counts on from building
			p.started = time.Now()
		}
		if !p.inPlace {
			fmt.Fprintln(p.w, p.line)
			return
		}
		fmt.Fprint(p.w, p.line)
		p.stop = make(chan struct{})
		go p.redraw(p.stop)
		return
	}
	suffix := ""
	if s.State == bundler.StepBuilt && p.line != "" {
		suffix = " (" + p.elapsed() + ")"
	}
	p.endLocked(s.String() + suffix)
}

// end finishes an open step line, of a build that stopped at it: the
// failure follows.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.line != "" {
		p.endLocked(p.line + " failed after " + p.elapsed())
	}
}

// endLocked stops redrawing the started step and prints final, if any, in
// its place.
func (p *progress) endLocked(final string) {
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
		fmt.Fprint(p.w, eraseLine)
	}
	p.line = ""
	if final != "" {
		fmt.Fprintln(p.w, final)
	}
}

func (p *progress) redraw(stop chan struct{}) {
	tick := time.NewTicker(progressTick)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			p.mu.Lock()
			select {
			case <-stop: // ended while this tick waited for the lock
			default:
				fmt.Fprintf(p.w, "%s%s %s", eraseLine, p.line, p.elapsed())
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) elapsed() string {
	return fmt.Sprintf("%.1fs", time.Since(p.started).Seconds())
}
