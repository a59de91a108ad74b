//go:build !linux

package pod

// grow moves the memory to a larger Go slice (linearmem_linux.go reserves
// it outside the Go heap instead).
func (m *linearMemory) grow(size uint64) { m.growOnHeap(size) }

// Free drops the memory when the instance is closed.
func (m *linearMemory) Free() { m.buf = nil }
