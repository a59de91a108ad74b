package wasmbin

// AppendU32 appends v in unsigned LEB128, in the fewest bytes.
func AppendU32(b []byte, v uint32) []byte { return AppendU64(b, uint64(v)) }

// AppendU64 appends v in unsigned LEB128, in the fewest bytes.
func AppendU64(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendS64 appends v in signed LEB128, in the fewest bytes, as i32.const
// and i64.const take it.
func AppendS64(b []byte, v int64) []byte {
	for {
		c := byte(v) & 0x7f
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendName appends a name: its length, then its bytes.
func AppendName[T string | []byte](b []byte, s T) []byte {
	return append(AppendU32(b, uint32(len(s))), s...)
}

// AppendSection appends a section: its id, its payload's size, its
// payload.
func AppendSection(b []byte, id byte, payload []byte) []byte {
	return append(AppendU32(append(b, id), uint32(len(payload))), payload...)
}
