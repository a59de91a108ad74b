package pod

import (
	"sync"
	"time"
)

// Usage is what a pod takes of its node now, as `kubectl top` reports it.
type Usage struct {
	// MemoryBytes is the current instance's linear memory (its pages ×
	// 64 KiB); 0 while no instance runs.
	MemoryBytes int64
	// CPU is the time the pod's callbacks (init, k32_handle, k32_event,
	// k32_main…) have run since the pod was made, across restarts, less the
	// time they waited in a sleep (k32_sleep_ms, WASI) or a k32_http_call. Guest code is compiled
	// and runs on a goroutine of its own, so this is its CPU time as long as
	// the host has a core free. On a node that stands for a board (serve
	// --board) it is instead the board time of the callbacks
	// (boardtime.go): the CPU the board's core would spend.
	CPU time.Duration
	// Since is when the pod was made, where CPU counts from.
	Since time.Time
}

// Usage returns the pod's usage now.
func (p *Pod) Usage() Usage {
	u := Usage{CPU: p.cpu.total(), Since: p.cpu.made}
	if t := p.cfg.Timing; t != nil && t.Standing {
		u.CPU = p.board.totalTime() // the board's core, not this one's
	}
	p.mu.Lock()
	if p.inst != nil {
		u.MemoryBytes = int64(p.inst.memory.size.Load())
	}
	p.mu.Unlock()
	return u
}

// cpuMeter integrates over time the number of the pod's callbacks that are
// running and not waiting: begin and end bracket a callback, wait and
// resume a wait inside one.
type cpuMeter struct {
	made    time.Time // set once by New
	mu      sync.Mutex
	running int
	since   time.Time // of the last change of running
	sum     time.Duration
}

func (m *cpuMeter) add(delta int) {
	m.mu.Lock()
	m.advanceLocked()
	m.running += delta
	m.mu.Unlock()
}

func (m *cpuMeter) advanceLocked() {
	now := time.Now()
	if m.running > 0 {
		m.sum += time.Duration(m.running) * now.Sub(m.since)
	}
	m.since = now
}

func (m *cpuMeter) begin()  { m.add(1) }
func (m *cpuMeter) end()    { m.add(-1) }
func (m *cpuMeter) wait()   { m.add(-1) }
func (m *cpuMeter) resume() { m.add(1) }

func (m *cpuMeter) total() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advanceLocked()
	return m.sum
}
