package modcheck

import (
	"errors"
	"fmt"
)

// The stack of a module compiled by clang or rustc lives in linear memory,
// and the mutable i32 global __stack_pointer holds its top. A C pod is
// linked with --stack-first (docs/cli.md): the stack runs down from that
// top to address 0, below the static data, so the global's initial value is
// the stack's size. Go's global 0 is its SP register instead; Go's runtime
// sets it when it starts and runs goroutines on stacks in its heap, so for
// a Go module the initial value says nothing of a stack (it is 0).

// Sections and kinds of the WebAssembly binary format that stackBytes reads.
const (
	sectionCustom = 0
	sectionImport = 2
	sectionGlobal = 6
	sectionExport = 7
	kindGlobal    = 3 // import and export descriptor of a global
	typeI32       = 0x7f
	opI32Const    = 0x41
	opEnd         = 0x0b
	nameGlobals   = 7 // the "name" section's subsection of global names
)

// stackPointerName is the name wasm-ld gives the stack pointer global.
const stackPointerName = "__stack_pointer"

// stackBytes reads the initial value of the module's stack pointer: the
// global exported or named (name section) __stack_pointer, else the first
// mutable i32 global that the module defines. It returns 0 when there is
// none or its initial value is not a constant. wasm must have passed
// wazero's validation, which this decoder relies on for lengths.
func stackBytes(wasm []byte) (int64, error) {
	mod, err := readGlobals(wasm)
	if err != nil {
		return 0, fmt.Errorf("reading the stack pointer: %w", err)
	}
	if idx, ok := mod.named[stackPointerName]; ok {
		if g, ok := mod.defined(idx); ok && g.mutable && g.i32 {
			return g.init, nil
		}
	}
	for _, g := range mod.globals {
		if g.mutable && g.i32 {
			return g.init, nil
		}
	}
	return 0, nil
}

// global is one global that a module defines.
type global struct {
	i32, mutable bool
	init         int64 // the i32.const of its initializer; 0 when none
}

// globals are what readGlobals finds of a module's globals.
type globals struct {
	imported int               // imported globals come first in the index space
	globals  []global          // the defined ones, from index imported on
	named    map[string]uint32 // global index by export or debug name
}

// defined returns the defined global of index idx.
func (m *globals) defined(idx uint32) (global, bool) {
	i := int(idx) - m.imported
	if i < 0 || i >= len(m.globals) {
		return global{}, false
	}
	return m.globals[i], true
}

var errTruncated = errors.New("truncated section")

// readGlobals walks the sections of wasm for its globals and their names.
func readGlobals(wasm []byte) (*globals, error) {
	m := &globals{named: map[string]uint32{}}
	if len(wasm) < 8 {
		return nil, errTruncated
	}
	r := &reader{b: wasm[8:], base: 8} // after magic and version
	for r.more() {
		id := r.byte()
		s := r.sub(int(r.u32()))
		if r.err != nil {
			return nil, r.err
		}
		switch id {
		case sectionImport:
			m.imported = countImportedGlobals(s)
		case sectionGlobal:
			m.globals = readGlobalSection(s)
		case sectionExport:
			for n := s.u32(); n > 0 && s.err == nil; n-- {
				name, kind, idx := s.name(), s.byte(), s.u32()
				if kind == kindGlobal {
					m.named[name] = idx
				}
			}
		case sectionCustom:
			if s.name() == "name" {
				readGlobalNames(s, m.named)
			}
		}
		if s.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, s.err)
		}
	}
	return m, nil
}

// countImportedGlobals counts the globals of the import section.
func countImportedGlobals(s *reader) int {
	count := 0
	for n := s.u32(); n > 0 && s.err == nil; n-- {
		s.name()
		s.name()
		switch s.byte() {
		case 0: // function: a type index
			s.u32()
		case 1: // table: a reference type and limits
			s.byte()
			skipLimits(s)
		case 2: // memory
			skipLimits(s)
		case kindGlobal: // value type and mutability
			s.byte()
			s.byte()
			count++
		default: // tags and later kinds: wazero refused them already
			s.err = errors.New("unknown import kind")
		}
	}
	return count
}

// readGlobalSection reads each global's type and constant initializer.
func readGlobalSection(s *reader) []global {
	var gs []global
	for n := s.u32(); n > 0 && s.err == nil; n-- {
		g := global{i32: s.byte() == typeI32, mutable: s.byte() == 1}
		g.init, _ = constI32(s)
		gs = append(gs, g)
	}
	return gs
}

// readGlobalNames adds the names of the name section's global subsection.
func readGlobalNames(s *reader, named map[string]uint32) {
	for s.more() {
		id := s.byte()
		sub := s.sub(int(s.u32()))
		if id != nameGlobals {
			continue
		}
		for n := sub.u32(); n > 0 && sub.err == nil; n-- {
			idx, name := sub.u32(), sub.name()
			if _, ok := named[name]; !ok {
				named[name] = idx
			}
		}
	}
}

// skipLimits skips the limits of a table or memory.
func skipLimits(r *reader) {
	flags := r.byte()
	r.u32()
	if flags&1 != 0 {
		r.u32()
	}
}

// constI32 reads a constant expression up to its end and returns its value
// when it is a single i32.const.
func constI32(r *reader) (v int64, ok bool) {
	for n := 0; r.err == nil; n++ {
		switch op := r.byte(); op {
		case opEnd:
			return v, ok && n == 1
		case opI32Const:
			v, ok = r.s33(), true
		case 0x42: // i64.const
			r.s64()
		case 0x43: // f32.const
			r.bytes(4)
		case 0x44: // f64.const
			r.bytes(8)
		case 0x23, 0xd2: // global.get, ref.func
			r.u32()
		case 0xd0: // ref.null
			r.byte()
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended-const add, sub, mul
		default:
			r.err = fmt.Errorf("unknown instruction 0x%02x in a constant expression", op)
		}
	}
	return 0, false
}
