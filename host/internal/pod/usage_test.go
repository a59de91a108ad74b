package pod

import (
	"testing"
	"time"
)

// TestUsage: memory is the instance's pages × 64 KiB, as the guest counts
// them; CPU counts a spinning callback and not a sleeping one.
func TestUsage(t *testing.T) {
	// 2 s, not less: every callback of the pod has this deadline, and a
	// loaded machine may take hundreds of milliseconds over /grow.
	const deadline = 2 * time.Second
	p := startPod(t, onePage(t, "probe"), func(c *Config) { c.HandlerTimeout = deadline })
	url := serve(t, p)
	if u := p.Usage(); u.MemoryBytes != 65536 || u.Since.IsZero() {
		t.Errorf("usage of a one-page pod: %+v", u)
	}
	res := get(t, url+"/grow")
	wantLines(t, res.body, "grow=1", "pages=2")
	if got := p.Usage().MemoryBytes; got != 2*65536 {
		t.Errorf("memory after growing a page: %d, want %d", got, 2*65536)
	}

	before := p.Usage().CPU
	get(t, url+"/sleep-long") // sleeps until the deadline
	if slept := p.Usage().CPU - before; slept > 100*time.Millisecond {
		t.Errorf("a callback asleep for %v took %v of CPU", deadline, slept)
	}
	before = p.Usage().CPU
	res = get(t, url+"/loop") // spins until the deadline, which ends the instance
	if spun := p.Usage().CPU - before; spun < deadline-10*time.Millisecond {
		t.Errorf("a callback spinning for %v took %v of CPU; answer %d %q", deadline, spun, res.status, res.body)
	}
}
