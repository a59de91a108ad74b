package modcheck

import "fmt"

// reader reads a module with a sticky error: after the first failure every
// read returns zero.
type reader struct {
	b    []byte
	pos  int
	base int // offset of b[0] in the module
	err  error
}

func (r *reader) more() bool  { return r.err == nil && r.pos < len(r.b) }
func (r *reader) offset() int { return r.base + r.pos }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("offset %d: %s", r.offset(), fmt.Sprintf(format, args...))
	}
}

func (r *reader) undecodable(what string, offset int) {
	if r.err == nil {
		r.err = &undecodableError{what, offset}
	}
}

func (r *reader) peek() byte {
	if r.err != nil || r.pos >= len(r.b) {
		return 0
	}
	return r.b[r.pos]
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.fail("%d bytes past the end", n)
		return nil
	}
	r.pos += n
	return r.b[r.pos-n : r.pos]
}

// sub returns a reader of the next n bytes and moves past them.
func (r *reader) sub(n int) *reader {
	base := r.offset()
	b := r.bytes(n)
	sub := &reader{b: b, base: base}
	if r.err != nil {
		sub.err = r.err
	}
	return sub
}

func (r *reader) name() string { return string(r.bytes(int(r.u32()))) }

// leb reads an unsigned LEB128 number of at most maxBytes bytes.
func (r *reader) leb(maxBytes int) (v uint64, last byte, shift uint) {
	for range maxBytes {
		b := r.byte()
		if r.err != nil {
			return 0, 0, 0
		}
		v |= uint64(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			return v, b, shift
		}
	}
	r.fail("LEB128 number longer than %d bytes", maxBytes)
	return 0, 0, 0
}

func (r *reader) u32() uint32 { v, _, _ := r.leb(5); return uint32(v) }
func (r *reader) u64() uint64 { v, _, _ := r.leb(10); return v }

// s33 reads a signed number of at most 5 bytes (block and heap types,
// i32.const).
func (r *reader) s33() int64 {
	v, last, shift := r.leb(5)
	if last&0x40 != 0 {
		v |= ^uint64(0) << shift
	}
	return int64(v)
}

func (r *reader) s64() { r.leb(10) }
