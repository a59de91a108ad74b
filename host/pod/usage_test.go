package pod

import (
	"testing"
	"time"
)

// TestUsage: memory is the instance's pages × 64 KiB, as the guest counts
// them; CPU counts a spinning callback and not a sleeping one.
func TestUsage(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), func(c *Config) { c.HandlerTimeout = 300 * time.Millisecond })
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
	get(t, url+"/sleep-long") // sleeps until the 300 ms deadline
	if slept := p.Usage().CPU - before; slept > 100*time.Millisecond {
		t.Errorf("a callback asleep for 300 ms took %v of CPU", slept)
	}
	before = p.Usage().CPU
	get(t, url+"/loop") // spins until the deadline, which ends the instance
	if spun := p.Usage().CPU - before; spun < 290*time.Millisecond {
		t.Errorf("a callback spinning for 300 ms took %v of CPU", spun)
	}
}
