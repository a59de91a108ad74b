package pod

import (
	"math"
	"syscall"
)

// grow makes room for size bytes: on the first call, a reservation of the
// whole cap (private, anonymous, with no swap reserved for it) in which the
// memory then grows in place. Its pages cost nothing until the guest
// touches them, and they are zero then, so nothing clears them either.
func (m *linearMemory) grow(size uint64) {
	if cap(m.buf) == 0 && m.limit <= math.MaxInt {
		region, err := syscall.Mmap(-1, 0, int(m.limit), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
		if err == nil {
			m.buf, m.mapped = region[:0], true
			return
		}
	}
	m.growOnHeap(size)
}

// Free drops the memory when the instance is closed. A mapped region is
// unmapped once the pod's callback lock is free: a callback may still be
// running in the closed instance (a k32_event that entered it before its
// k32_main's end closed it), and a Go slice of unmapped memory would crash
// the process where a slice of the Go heap stays valid.
func (m *linearMemory) Free() {
	region := m.buf[:cap(m.buf)]
	m.buf = nil
	if !m.mapped {
		return
	}
	go func() {
		m.pod.lock <- struct{}{}
		defer func() { <-m.pod.lock }()
		_ = syscall.Munmap(region)
	}()
}
