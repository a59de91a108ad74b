// Package lograte lets node log lines such as [NETPOL] and [EGRESS]
// through at most once per abi.LogRateInterval, and gives the node's rate
// limits their clock. Every rate limit of the node (these lines, a pod's
// log, wrong tokens) is a golang.org/x/time/rate limiter asked at a time
// from Now, so that a test moves a clock instead of waiting one out.
package lograte

import (
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	"golang.org/x/time/rate"
)

// Limiter lets one line through per abi.LogRateInterval. The zero value is ready; it
// is safe for concurrent use.
type Limiter struct {
	once sync.Once
	r    *rate.Limiter
}

// Allow reports whether a line may be written now, and if so counts it.
func (l *Limiter) Allow() bool { return l.AllowAt(time.Now()) }

// AllowAt is Allow at the time now, for callers with a clock of their own
// (tests move it on instead of waiting out the interval).
func (l *Limiter) AllowAt(now time.Time) bool {
	l.once.Do(func() { l.r = rate.NewLimiter(rate.Every(abi.LogRateInterval), 1) })
	return l.r.AllowN(now, 1)
}

// Now returns clock(), or time.Now() when clock is nil: the time of a
// Limiter's owner that may be given a clock.
func Now(clock func() time.Time) time.Time {
	if clock == nil {
		return time.Now()
	}
	return clock()
}
