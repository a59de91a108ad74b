package lograte

import "testing"

// "at most once per second": a second line right after the first is held
// back; the limiter does not depend on a clock other than the real one, so
// only the first two calls are checked.
func TestAllowLetsOneLineThroughPerInterval(t *testing.T) {
	var l Limiter
	if !l.Allow() {
		t.Fatal("the first line was held back")
	}
	if l.Allow() {
		t.Fatal("a second line within the interval was let through")
	}
}
