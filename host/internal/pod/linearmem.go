package pod

import (
	"context"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// linearMemory backs one instance's linear memory with a slice that never
// grows past the pod's cap: memory.grow past it returns -1, as WebAssembly
// defines, and the refusal is remembered so that the end it leads to (a
// trap, the Go runtime's "out of memory") is reported as OOMKilled.
//
// On Linux the slice is a reservation of the whole cap outside the Go heap
// (linearmem_linux.go): the memory grows in place, the host pays only for
// the pages the guest touches, and the Go heap (whose garbage collector
// paces itself on the heap's size) holds no linear memory. Elsewhere, and
// when the reservation fails, it is a Go slice.
type linearMemory struct {
	pod     *Pod
	limit   uint64 // bytes: the cap in whole pages
	buf     []byte
	size    atomic.Uint64 // len(buf), for readers outside the callback
	refused atomic.Bool
	// mapped is set when buf is a reservation outside the Go heap, which
	// Free unmaps.
	mapped bool
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
		m.grow(size)
	}
	m.buf = m.buf[:size]
	m.size.Store(size)
	return m.buf
}

// growOnHeap moves the memory to a larger Go slice. It doubles the
// capacity (up to the cap) so that growing a page at a time copies the
// memory a few times, not once per page.
func (m *linearMemory) growOnHeap(size uint64) {
	b := make([]byte, size, max(size, min(2*uint64(cap(m.buf)), m.limit)))
	copy(b, m.buf)
	m.buf = b
}

// onHeap reports whether the memory is a Go slice, which the Go runtime
// hands back to the operating system only when it gets round to it
// (releaseMemory).
func (m *linearMemory) onHeap() bool { return !m.mapped }
