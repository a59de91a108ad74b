package pod

import (
	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// Guest memory helpers. Every range is checked: a range outside memory is
// K32_ERR_FAULT, never a trap.

// read returns a view of guest memory [ptr, ptr+n); ok is false when out of range.
func read(mod api.Module, ptr, n uint32) ([]byte, bool) {
	if n == 0 {
		return nil, true
	}
	mem := mod.Memory()
	if mem == nil {
		return nil, false
	}
	return mem.Read(ptr, n)
}

// readString copies guest bytes [ptr, ptr+n) into a string.
func readString(mod api.Module, ptr, n uint32) (string, bool) {
	b, ok := read(mod, ptr, n)
	return string(b), ok
}

// argBytes is the guest memory that arguments i and i+1 (a pointer and a
// length) name; false when the range is out of bounds.
func argBytes(mod api.Module, args []uint64, i int) ([]byte, bool) {
	return read(mod, u32(args, i), u32(args, i+1))
}

// argString is argBytes as a string.
func argString(mod api.Module, args []uint64, i int) (string, bool) {
	return readString(mod, u32(args, i), u32(args, i+1))
}

// copyOut implements the getter convention: check [out, out+cap), copy
// min(len(value), cap) bytes and return the full length.
func copyOut[T string | []byte](mod api.Module, out, cap uint32, value T) int32 {
	dst, ok := read(mod, out, cap)
	if !ok {
		return int32(abi.ErrFault)
	}
	copy(dst, value)
	return int32(min(len(value), 0x7fffffff))
}
