package wasmbin

import "fmt"

// Reader reads WebAssembly binary with a sticky error: after the first
// failure every read returns zero and Err says what failed, at which
// offset of the binary.
type Reader struct {
	b    []byte
	pos  int
	base int // offset of b[0] in the binary
	err  error
}

// NewReader reads b from its start.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// NewReaderAt reads b, a part of a binary that starts at offset base, so
// that offsets (Offset, errors) count from the binary's start.
func NewReaderAt(b []byte, base int) *Reader { return &Reader{b: b, base: base} }

// Err is the first failure, nil if none.
func (r *Reader) Err() error { return r.err }

// More says whether bytes are left and nothing failed.
func (r *Reader) More() bool { return r.err == nil && r.pos < len(r.b) }

// Offset is where the next read starts, in the binary.
func (r *Reader) Offset() int { return r.base + r.pos }

// Start and End are where the bytes r reads begin and end, in the binary.
func (r *Reader) Start() int { return r.base }
func (r *Reader) End() int   { return r.base + len(r.b) }

// Len is the number of bytes left.
func (r *Reader) Len() int { return len(r.b) - r.pos }

// Fail records a failure at the current offset, unless one is recorded.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("offset %d: %s", r.Offset(), fmt.Sprintf(format, args...))
	}
}

// Stop records err as the failure, unless one is recorded.
func (r *Reader) Stop(err error) {
	if r.err == nil {
		r.err = err
	}
}

// SkipRest moves to the end and forgets any failure: what is left, such
// as an optional custom section read in part, is ignored.
func (r *Reader) SkipRest() { r.pos, r.err = len(r.b), nil }

// From returns a reader of the same bytes from offset (in the binary) on.
func (r *Reader) From(offset int) *Reader {
	from := &Reader{b: r.b, base: r.base, pos: offset - r.base}
	if from.pos < 0 || from.pos > len(r.b) {
		from.pos = len(r.b)
		from.Fail("offset %d outside %d to %d", offset, r.Start(), r.End())
	}
	return from
}

// Peek returns the next byte without reading it, 0 at the end.
func (r *Reader) Peek() byte {
	if r.err != nil || r.pos >= len(r.b) {
		return 0
	}
	return r.b[r.pos]
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) {
		r.Fail("unexpected end")
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

// Bytes reads n bytes, a slice of the binary.
func (r *Reader) Bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.Fail("%d bytes past the end", n)
		return nil
	}
	r.pos += n
	return r.b[r.pos-n : r.pos]
}

// Sub returns a reader of the next n bytes and moves past them; it fails
// as r did, or fails when r does.
func (r *Reader) Sub(n int) *Reader {
	base := r.Offset()
	sub := &Reader{b: r.Bytes(n), base: base}
	sub.err = r.err
	return sub
}

// Section reads a section's id and size and returns a reader of its
// payload.
func (r *Reader) Section() (id byte, payload *Reader) {
	id = r.Byte()
	return id, r.Sub(int(r.U32()))
}

// Name reads a name: its length, then its bytes.
func (r *Reader) Name() string { return string(r.NameBytes()) }

// NameBytes reads a name without copying it: a slice of the binary.
func (r *Reader) NameBytes() []byte { return r.Bytes(int(r.U32())) }

// leb reads an unsigned LEB128 number of at most maxBytes bytes; last is
// its last byte and shift the bits it read, for sign extension.
func (r *Reader) leb(maxBytes int) (v uint64, last byte, shift uint) {
	for range maxBytes {
		b := r.Byte()
		if r.err != nil {
			return 0, 0, 0
		}
		v |= uint64(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			return v, b, shift
		}
	}
	r.Fail("LEB128 number longer than %d bytes", maxBytes)
	return 0, 0, 0
}

// U32 reads an unsigned LEB128 number of at most 5 bytes.
func (r *Reader) U32() uint32 { v, _, _ := r.leb(5); return uint32(v) }

// U64 reads an unsigned LEB128 number of at most 10 bytes.
func (r *Reader) U64() uint64 { v, _, _ := r.leb(10); return v }

// S33 reads a signed LEB128 number of at most 5 bytes (block and heap
// types, i32.const).
func (r *Reader) S33() int64 { return r.signed(5) }

// S64 reads a signed LEB128 number of at most 10 bytes (i64.const).
func (r *Reader) S64() int64 { return r.signed(10) }

func (r *Reader) signed(maxBytes int) int64 {
	v, last, shift := r.leb(maxBytes)
	if last&0x40 != 0 && shift < 64 {
		v |= ^uint64(0) << shift
	}
	return int64(v)
}

// ValType reads a value type; a reference type 0x63 or 0x64 (nullable,
// non-null) is followed by its heap type, returned too.
func (r *Reader) ValType() (t byte, heap int64) {
	if t = r.Byte(); t == 0x63 || t == 0x64 {
		heap = r.S33()
	}
	return t, heap
}

// Limits reads the limits of a table or memory: the flags (bit 0 a
// maximum, bit 1 shared, bit 2 64-bit, bit 3 a custom page size), the
// minimum and the maximum (0 without one); a custom page size is read
// past.
func (r *Reader) Limits() (flags byte, min, max uint64) {
	flags = r.Byte()
	min = r.U64()
	if flags&0x01 != 0 {
		max = r.U64()
	}
	if flags&0x08 != 0 {
		r.U32()
	}
	return flags, min, max
}
