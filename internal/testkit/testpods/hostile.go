package testpods

import (
	"bytes"

	"github.com/kube32/kube32/abi/wasmbin"
)

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
	m := []byte(wasmbin.Header)

	types := wasmbin.AppendU32(nil, uint32(1+h.Types))
	types = append(types, 0x60, 0, 1, 0x7F) // () -> i32
	for i := range h.Types {                // (i32 × i%8) -> ()
		types = append(types, 0x60, byte(i%8))
		types = append(types, bytes.Repeat([]byte{0x7F}, i%8)...)
		types = append(types, 0)
	}
	m = wasmbin.AppendSection(m, 1, types)

	fs := wasmbin.AppendU32(nil, uint32(funcs))
	fs = append(fs, make([]byte, funcs)...) // every function of type 0
	m = wasmbin.AppendSection(m, 3, fs)

	if h.Table > 0 {
		m = wasmbin.AppendSection(m, 4, wasmbin.AppendU32([]byte{1, 0x70, 0}, h.Table))
	}
	m = wasmbin.AppendSection(m, 5, []byte{1, 0, 1}) // one page

	if h.Globals > 0 {
		gs := wasmbin.AppendU32(nil, uint32(h.Globals))
		for range h.Globals {
			gs = append(gs, 0x7F, 0, 0x41, 0, 0x0B) // i32, immutable, i32.const 0
		}
		m = wasmbin.AppendSection(m, 6, gs)
	}

	exports := []byte{2}
	exports = wasmbin.AppendName(exports, "memory")
	exports = append(exports, 2, 0)
	exports = wasmbin.AppendName(exports, "k32_handle")
	exports = append(exports, 0, 0)
	m = wasmbin.AppendSection(m, 7, exports)

	body := h.body()
	code := wasmbin.AppendU32(nil, uint32(funcs))
	for range funcs {
		code = wasmbin.AppendName(code, body) // its size, then its bytes
	}
	m = wasmbin.AppendSection(m, 10, code)

	names := wasmbin.AppendName(nil, "name")
	fnames := wasmbin.AppendName([]byte{1, 0}, "handle") // one name: function 0
	names = wasmbin.AppendName(append(names, 1), fnames) // subsection 1: its size, then its bytes
	m = wasmbin.AppendSection(m, 0, names)
	return append(m, bytes.Repeat([]byte{0, 2, 0, 0}, h.Sections)...) // an empty name, one byte
}

// body is each function's body: its locals, then its code.
func (h Hostile) body() []byte {
	var b []byte
	if h.Locals > 0 {
		b = wasmbin.AppendU32(append(b, 1), h.Locals)
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
		b = wasmbin.AppendU32(b, uint32(h.BrTable))
		b = append(b, make([]byte, h.BrTable+1)...)
		b = append(b, 0x0B)
	}
	return append(b, 0x41, 0, 0x0B) // i32.const 0, end
}
