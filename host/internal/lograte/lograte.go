// Package lograte lets node log lines such as [NETPOL] and [EGRESS]
// through at most once per abi.LogRateInterval.
package lograte

import (
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
)

// Limiter lets one line through per abi.LogRateInterval. The zero value is ready; it
// is safe for concurrent use.
type Limiter struct {
	mu   sync.Mutex
	last time.Time
}

// Allow reports whether a line may be written now, and if so counts it.
func (l *Limiter) Allow() bool { return l.AllowAt(time.Now()) }

// AllowAt is Allow at the time now, for callers with a clock of their own
// (tests move it on instead of waiting out the interval).
func (l *Limiter) AllowAt(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < abi.LogRateInterval {
		return false
	}
	l.last = now
	return true
}

// Now returns clock(), or time.Now() when clock is nil: the time of a
// Limiter's owner that may be given a clock.
func Now(clock func() time.Time) time.Time {
	if clock == nil {
		return time.Now()
	}
	return clock()
}
