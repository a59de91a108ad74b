package lower

import "fmt"

// reader reads WebAssembly binary with a sticky error: after the first
// failure every read returns zero.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) more() bool { return r.err == nil && r.pos < len(r.b) }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("offset %d: %s", r.pos, fmt.Sprintf(format, args...))
	}
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

// leb reads an unsigned LEB128 number of at most maxBytes bytes (5 for a
// u32, 10 for a u64); signed numbers have the same length, so skipping one
// reads it as unsigned.
func (r *reader) leb(maxBytes int) uint64 {
	var v uint64
	var shift uint
	for range maxBytes {
		b := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint64(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			return v
		}
	}
	r.fail("LEB128 number longer than %d bytes", maxBytes)
	return 0
}

func (r *reader) u32() uint32 { return uint32(r.leb(5)) }

func (r *reader) name() string { return string(r.nameBytes()) }

// nameBytes reads a name without copying it: a slice of the binary.
func (r *reader) nameBytes() []byte { return r.bytes(int(r.u32())) }

// appendU32 appends v as unsigned LEB128 in the fewest bytes.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendName appends a WebAssembly name: its length, then its bytes.
func appendName[T string | []byte](b []byte, s T) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}
