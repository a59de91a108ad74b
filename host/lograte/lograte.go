// Package lograte holds the spec's "at most once per second" for node log
// lines such as [NETPOL] and [EGRESS].
package lograte

import (
	"sync"
	"time"
)

// Interval is how often a rate-limited line may be written.
const Interval = time.Second

// Limiter lets one line through per Interval. The zero value is ready; it
// is safe for concurrent use.
type Limiter struct {
	mu   sync.Mutex
	last time.Time
}

// Allow reports whether a line may be written now, and if so counts it.
func (l *Limiter) Allow() bool {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < Interval {
		return false
	}
	l.last = now
	return true
}
