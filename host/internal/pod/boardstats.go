package pod

import (
	"slices"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
)

// BoardStats is the board time of a pod's recent callbacks, for the web
// view.
type BoardStats struct {
	Board    string        // the board of the cost model
	Count    int           // callbacks counted since the pod was made
	P50, P99 time.Duration // of the recent ones
	Slow     int           // callbacks past Timing.Slow since the pod was made
	SlowOver time.Duration // Timing.Slow
	Total    time.Duration // their own board time (less in-process callees'): the pod's CPU on the board
}

// boardStats keeps the board time of a pod's callbacks.
type boardStats struct {
	mu     sync.Mutex
	recent [abi.BoardTimeWindow]time.Duration
	next   int
	count  int
	slow   int
	total  time.Duration
}

// add records a callback: its board time for the percentiles, its own
// for the total, so that a callee's time counts once, as its own.
func (s *boardStats) add(bt BoardTime, slow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recent[s.next] = bt.Duration
	s.next = (s.next + 1) % abi.BoardTimeWindow
	s.count++
	s.total += bt.Own
	if slow {
		s.slow++
	}
}

func (s *boardStats) totalTime() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

func (s *boardStats) snapshot() (recent []time.Duration, count, slow int, total time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recent = slices.Clone(s.recent[:min(s.count, abi.BoardTimeWindow)])
	return recent, s.count, s.slow, s.total
}

// BoardStats returns the board time of p's callbacks; ok is false when
// its work is not counted.
func (p *Pod) BoardStats() (BoardStats, bool) {
	t := p.cfg.Timing
	if t == nil || p.uncounted.Load() {
		return BoardStats{}, false
	}
	recent, count, slow, total := p.board.snapshot()
	st := BoardStats{Board: t.Board.Name, Count: count, Slow: slow, SlowOver: t.Slow, Total: total}
	if len(recent) > 0 {
		slices.Sort(recent)
		st.P50 = recent[(len(recent)-1)*50/100]
		st.P99 = recent[(len(recent)-1)*99/100]
	}
	return st, true
}
