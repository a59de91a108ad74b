package lograte

import (
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
)

// "at most once per second": a second line right after the first is held
// back, and a line a whole interval after the last one let through passes.
func TestAllowLetsOneLineThroughPerInterval(t *testing.T) {
	var l Limiter
	start := time.Now()
	if !l.AllowAt(start) {
		t.Fatal("the first line was held back")
	}
	if l.AllowAt(start.Add(abi.LogRateInterval - time.Millisecond)) {
		t.Fatal("a second line within the interval was let through")
	}
	if !l.AllowAt(start.Add(abi.LogRateInterval)) {
		t.Fatal("a line one interval after the first was held back")
	}
	if l.AllowAt(start.Add(abi.LogRateInterval + time.Millisecond)) {
		t.Fatal("the interval did not restart from the last line let through")
	}
}

func TestNowIsTheClockGiven(t *testing.T) {
	fixed := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if got := Now(func() time.Time { return fixed }); !got.Equal(fixed) {
		t.Errorf("Now(clock) = %v, want %v", got, fixed)
	}
	if got := Now(nil); time.Since(got) > time.Minute || time.Since(got) < 0 {
		t.Errorf("Now(nil) = %v, not the time", got)
	}
}
