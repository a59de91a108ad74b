package modcheck

import (
	"fmt"

	"github.com/kube32/kube32/abi/wasmbin"
)

// Layout is where things are in a module, for the local runtime's tools
// that rewrite a copy of it (the work counting of host/internal/meter):
// the sections, the globals and exports, and each function body. Offsets
// are from the start of the module.
type Layout struct {
	Sections        []Section
	ImportedGlobals uint32
	Globals         uint32 // defined in the global section
	Exports         []string
	Bodies          []Body // in the order of the code section
}

// Section is one section: its id byte at Start, its contents from Payload
// to End. A custom section has its Name; in the sections that are one
// vector (type, import, function, table, memory, global, export, element,
// code, data), Count is the vector's length and Items where its first item
// begins.
type Section struct {
	ID                  byte
	Start, Payload, End int
	Name                string
	Count               uint32
	Items               int
}

// Body is one function body: its locals from Start, its first instruction
// at Code, and End just past its final end.
type Body struct{ Start, Code, End int }

// Instruction is one instruction of a function body: its opcode, the
// sub-opcode after a prefix byte (0xFB to 0xFE), and where its bytes are.
type Instruction struct {
	Op         byte
	Sub        uint32
	Start, End int
}

// layoutScan is what the feature scan notes for ReadLayout.
type layoutScan struct {
	Layout
	each func(body int, in Instruction)
}

// visit tells each of the instruction op that began at off and ends where
// r is.
func (l *layoutScan) visit(r *wasmbin.Reader, op byte, off int) {
	in := Instruction{Op: op, Start: off, End: r.Offset()}
	if op >= 0xFB && op <= 0xFE {
		sub := r.From(off + 1)
		in.Sub = sub.U32()
	}
	l.each(len(l.Bodies)-1, in)
}

// ReadLayout reads the layout of wasm and calls each for every instruction
// of every function body, in order (body indexes Layout.Bodies). It reads
// the module as Check does, so what Check refuses, a module over a budget or
// with an instruction no reader here decodes, is an error.
func ReadLayout(wasm []byte, each func(body int, in Instruction)) (*Layout, error) {
	lay := &layoutScan{each: each}
	scan, err := scanWith(wasm, lay)
	switch {
	case err != nil:
		return nil, err
	case len(scan.overBudget) > 0:
		o := scan.overBudget[0]
		return nil, fmt.Errorf("%s %s %s", scan.describe(o.at), o.what, o.limit)
	case len(scan.undecoded) > 0:
		u := scan.undecoded[0]
		return nil, fmt.Errorf("%s: cannot decode %s at offset %d", scan.describe(u.at), u.what, u.offset)
	}
	for i := range lay.Sections {
		sec := &lay.Sections[i]
		r := wasmbin.NewReaderAt(wasm[sec.Payload:sec.End], sec.Payload)
		switch sec.ID {
		case 0:
			sec.Name = r.Name()
		case 1, 2, 3, 4, 5, 6, 7, 9, 10, 11:
			sec.Count = r.U32()
			sec.Items = r.Offset()
		}
	}
	return &lay.Layout, nil
}
