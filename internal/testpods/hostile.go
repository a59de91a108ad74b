package testpods

import "bytes"

// Hostile is a pod module made by hand, byte by byte, for what no compiler
// emits on request: a function with millions of locals, blocks nested 100k
// deep, a br_table of 500k targets, more functions, globals or types than
// a board loads. With every field zero it is a valid pod (k32_handle
// returning 0, one page of memory exported), so a test that refuses it
// refuses what the field adds.
type Hostile struct {
	Locals    uint32 // i64 locals each function declares
	Depth     int    // blocks nested in each function
	Blocks    int    // blocks one after another in each function
	Ifs       int    // ifs one after another in each function
	BrTable   int    // targets of a br_table in each function
	Nops      int    // nop instructions in each function, to make it long
	Functions int    // functions, at least 1: the first is k32_handle, named "handle"
	Globals   int    // immutable i32 globals
	Types     int    // types beside k32_handle's
	Table     uint32 // initial entries of a funcref table; 0 for none
	Sections  int    // custom sections (an empty name, a byte) after the others, 4 bytes each
}

// Wasm encodes the module.
func (h Hostile) Wasm() []byte {
	funcs := max(h.Functions, 1)
	m := []byte("\x00asm\x01\x00\x00\x00")

	types := uleb(uint32(1 + h.Types))
	types = append(types, 0x60, 0, 1, 0x7F) // () -> i32
	for i := range h.Types {                // (i32 × i%8) -> ()
		types = append(types, 0x60, byte(i%8))
		types = append(types, bytes.Repeat([]byte{0x7F}, i%8)...)
		types = append(types, 0)
	}
	m = append(m, wasmSection(1, types)...)

	fs := uleb(uint32(funcs))
	fs = append(fs, make([]byte, funcs)...) // every function of type 0
	m = append(m, wasmSection(3, fs)...)

	if h.Table > 0 {
		m = append(m, wasmSection(4, append([]byte{1, 0x70, 0}, uleb(h.Table)...))...)
	}
	m = append(m, wasmSection(5, []byte{1, 0, 1})...) // one page

	if h.Globals > 0 {
		gs := uleb(uint32(h.Globals))
		for range h.Globals {
			gs = append(gs, 0x7F, 0, 0x41, 0, 0x0B) // i32, immutable, i32.const 0
		}
		m = append(m, wasmSection(6, gs)...)
	}

	exports := []byte{2}
	exports = append(exports, wasmName("memory")...)
	exports = append(exports, 2, 0)
	exports = append(exports, wasmName("k32_handle")...)
	exports = append(exports, 0, 0)
	m = append(m, wasmSection(7, exports)...)

	body := h.body()
	code := uleb(uint32(funcs))
	for range funcs {
		code = append(code, uleb(uint32(len(body)))...)
		code = append(code, body...)
	}
	m = append(m, wasmSection(10, code)...)

	names := wasmName("name")
	fnames := append([]byte{1, 0}, wasmName("handle")...) // one name: function 0
	names = append(names, 1)
	names = append(names, uleb(uint32(len(fnames)))...)
	names = append(names, fnames...)
	m = append(m, wasmSection(0, names)...)
	return append(m, bytes.Repeat([]byte{0, 2, 0, 0}, h.Sections)...) // an empty name, one byte
}

// body is each function's body: its locals, then its code.
func (h Hostile) body() []byte {
	var b []byte
	if h.Locals > 0 {
		b = append(b, 1)
		b = append(b, uleb(h.Locals)...)
		b = append(b, 0x7E) // i64
	} else {
		b = append(b, 0)
	}
	b = append(b, bytes.Repeat([]byte{0x01}, h.Nops)...)
	b = append(b, bytes.Repeat([]byte{0x02, 0x40, 0x0B}, h.Blocks)...)
	b = append(b, bytes.Repeat([]byte{0x41, 0, 0x04, 0x40, 0x0B}, h.Ifs)...) // i32.const 0, if, end
	b = append(b, bytes.Repeat([]byte{0x02, 0x40}, h.Depth)...)
	b = append(b, bytes.Repeat([]byte{0x0B}, h.Depth)...)
	if h.BrTable > 0 { // block, i32.const 0, br_table 0 … 0 0, end
		b = append(b, 0x02, 0x40, 0x41, 0, 0x0E)
		b = append(b, uleb(uint32(h.BrTable))...)
		b = append(b, make([]byte, h.BrTable+1)...)
		b = append(b, 0x0B)
	}
	return append(b, 0x41, 0, 0x0B) // i32.const 0, end
}

func uleb(n uint32) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func wasmSection(id byte, payload []byte) []byte {
	return append(append([]byte{id}, uleb(uint32(len(payload)))...), payload...)
}

func wasmName(s string) []byte { return append(uleb(uint32(len(s))), s...) }
