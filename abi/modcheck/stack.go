package modcheck

import (
	"errors"
	"fmt"

	"github.com/kube32/kube32/abi/wasmbin"
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
	r := wasmbin.NewReaderAt(wasm[wasmbin.HeaderLen:], wasmbin.HeaderLen) // after magic and version
	for r.More() {
		id, s := r.Section()
		if r.Err() != nil {
			return nil, r.Err()
		}
		switch id {
		case sectionImport:
			m.imported = countImportedGlobals(s)
		case sectionGlobal:
			m.globals = readGlobalSection(s)
		case sectionExport:
			for n := s.U32(); n > 0 && s.Err() == nil; n-- {
				name, kind, idx := s.Name(), s.Byte(), s.U32()
				if kind == kindGlobal {
					m.named[name] = idx
				}
			}
		case sectionCustom:
			if s.Name() == "name" {
				readGlobalNames(s, m.named)
			}
		}
		if s.Err() != nil {
			return nil, fmt.Errorf("section %d: %w", id, s.Err())
		}
	}
	return m, nil
}

// countImportedGlobals counts the globals of the import section.
func countImportedGlobals(s *wasmbin.Reader) int {
	count := 0
	for n := s.U32(); n > 0 && s.Err() == nil; n-- {
		s.Name()
		s.Name()
		switch s.Byte() {
		case 0: // function: a type index
			s.U32()
		case 1: // table: a reference type and limits
			s.ValType()
			s.Limits()
		case 2: // memory
			s.Limits()
		case kindGlobal: // value type and mutability
			s.ValType()
			s.Byte()
			count++
		default: // tags and later kinds: wazero refused them already
			s.Stop(errors.New("unknown import kind"))
		}
	}
	return count
}

// readGlobalSection reads each global's type and constant initializer.
func readGlobalSection(s *wasmbin.Reader) []global {
	var gs []global
	for n := s.U32(); n > 0 && s.Err() == nil; n-- {
		g := global{i32: s.Byte() == typeI32, mutable: s.Byte() == 1}
		g.init, _ = constI32(s)
		gs = append(gs, g)
	}
	return gs
}

// readGlobalNames adds the names of the name section's global subsection.
func readGlobalNames(s *wasmbin.Reader, named map[string]uint32) {
	for s.More() {
		id := s.Byte()
		sub := s.Sub(int(s.U32()))
		if id != nameGlobals {
			continue
		}
		for n := sub.U32(); n > 0 && sub.Err() == nil; n-- {
			idx, name := sub.U32(), sub.Name()
			if _, ok := named[name]; !ok {
				named[name] = idx
			}
		}
	}
}

// constI32 reads a constant expression up to its end and returns its value
// when it is a single i32.const.
func constI32(r *wasmbin.Reader) (v int64, ok bool) {
	for n := 0; r.Err() == nil; n++ {
		switch op := r.Byte(); op {
		case opEnd:
			return v, ok && n == 1
		case opI32Const:
			v, ok = r.S33(), true
		case 0x42: // i64.const
			r.S64()
		case 0x43: // f32.const
			r.Bytes(4)
		case 0x44: // f64.const
			r.Bytes(8)
		case 0x23, 0xd2: // global.get, ref.func
			r.U32()
		case 0xd0: // ref.null
			r.Byte()
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended-const add, sub, mul
		default:
			r.Stop(fmt.Errorf("unknown instruction 0x%02x in a constant expression", op))
		}
	}
	return 0, false
}
