package pod

import (
	"context"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// linearMemory backs one instance's linear memory with a Go slice that
// never grows past the pod's cap: memory.grow past it returns -1, as
// WebAssembly defines, and the refusal is remembered so that the end it
// leads to (a trap, the Go runtime's "out of memory") is reported as
// OOMKilled.
type linearMemory struct {
	limit   uint64 // bytes: the cap in whole pages
	buf     []byte
	size    atomic.Uint64 // len(buf), for readers outside the callback
	refused atomic.Bool
}

var _ experimental.LinearMemory = (*linearMemory)(nil)

// withMemory makes the module instantiated under ctx use mem.
func withMemory(ctx context.Context, mem *linearMemory) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(
		func(_, _ uint64) experimental.LinearMemory { return mem }))
}

// Reallocate resizes the memory to size bytes, or returns nil past the cap.
func (m *linearMemory) Reallocate(size uint64) []byte {
	if size > m.limit {
		m.refused.Store(true)
		return nil
	}
	if size > uint64(cap(m.buf)) {
		// Double the capacity (up to the cap) so that growing a page at a
		// time copies the memory a few times, not once per page.
		b := make([]byte, size, max(size, min(2*uint64(cap(m.buf)), m.limit)))
		copy(b, m.buf)
		m.buf = b
	}
	m.buf = m.buf[:size]
	m.size.Store(size)
	return m.buf
}

// Free drops the memory when the instance is closed.
func (m *linearMemory) Free() {
	m.buf = nil
}
