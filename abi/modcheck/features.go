package modcheck

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
)

// The feature scan walks a module's sections and every instruction of its
// code, MVP and the post-MVP extensions, and notes each use of a feature
// beyond the MVP with the function (or memory, table, global …) that uses
// it. It runs before wazero compiles, because wazero runs some features that
// the boards' interpreter does not and refuses others with errors that name
// neither the feature nor the function.

// featureUse is one use of a post-MVP feature.
type featureUse struct {
	feature abi.WasmFeature
	at      place
	what    string // the instruction or type, e.g. "v128.load"
}

// place is where in a module something is: a function by its index in the
// function index space, or a memory, table, global, segment or import.
type place struct {
	kind  string // "function", "memory", "table", "global", "type", "import", …
	index uint32
	name  string // for imports and sections, instead of the index
}

// undecodable is an instruction the scan cannot read: a feature it does not
// know, or garbage.
type undecodable struct {
	at     place
	what   string
	offset int // in the module
}

// featureScan is what the scan found.
type featureScan struct {
	uses       []featureUse
	undecoded  []undecodable
	funcNames  map[uint32]string // from the "name" custom section
	exportName map[uint32]string // the first export of each function
	k32Imports []string          // names of the functions imported from module k32
	// overBudget are the budgets the module exceeds (budget.go), at most
	// maxOverBudget functions of them; overMore counts the others.
	overBudget []overBudget
	overMore   int
	fig        figures
}

// errMalformed marks a module whose structure the scan cannot follow: Check
// refuses it before wazero sees it.
var errMalformed = errors.New("malformed module")

// scanner reads one module.
type scanner struct {
	featureScan
	seen        map[featureKey]bool
	types       []bool // per type index: a block of this type needs multivalue (it has params or several results)
	funcImports uint32
	tables      int
	memories    int
	globalsMut  []bool      // per global index: mutable
	inElemExprs bool        // ref.func and ref.null describe a table's contents (MVP)
	lay         *layoutScan // nil but for ReadLayout
	inBody      bool        // expr reads a function body, not a constant expression
}

type featureKey struct {
	feature abi.WasmFeature
	at      place
}

// scanFeatures reads wasm, a module that starts with the magic, and lists the
// features it uses. A module the scan cannot follow is errMalformed; an
// instruction it cannot decode is recorded and ends the scan of that function.
func scanFeatures(wasm []byte) (*featureScan, error) { return scanWith(wasm, nil) }

// scanWith is scanFeatures that also notes the module's layout in lay
// (ReadLayout) when lay is not nil.
func scanWith(wasm []byte, lay *layoutScan) (*featureScan, error) {
	s := &scanner{
		featureScan: featureScan{funcNames: map[uint32]string{}, exportName: map[uint32]string{}},
		seen:        map[featureKey]bool{},
		lay:         lay,
	}
	r := wasmbin.NewReader(wasm)
	if r.Bytes(4); string(r.Bytes(4)) != "\x01\x00\x00\x00" { // magic, version 1
		return nil, fmt.Errorf("%w: not version 1 of the binary format", errMalformed)
	}
	for r.Err() == nil && r.More() {
		if s.fig.sections++; s.fig.sections > abi.SectionsMax {
			s.over(r, place{kind: "module"}, "has more sections than", budgetSections, abi.SectionsMax)
			break
		}
		start := r.Offset()
		id := r.Byte()
		size := r.U32()
		if lay != nil {
			lay.Sections = append(lay.Sections, Section{ID: id, Start: start, Payload: r.Offset(), End: r.Offset() + int(size)})
		}
		if id == 10 {
			s.fig.codeBytes = uint64(size)
			if size > abi.CodeBytesMax {
				s.over(r, place{kind: "module"}, fmt.Sprintf("has %d bytes of code, over", size), budgetCode, abi.CodeBytesMax)
				break
			}
		}
		body := r.Sub(int(size))
		if r.Err() != nil {
			break
		}
		s.section(id, body)
		if errors.Is(body.Err(), errOverBudget) {
			return &s.featureScan, nil // the rest is not read
		}
		if body.Err() != nil {
			return nil, fmt.Errorf("%w: section %d at offset %d: %v", errMalformed, id, body.Start(), body.Err())
		}
		if body.More() {
			return nil, fmt.Errorf("%w: section %d at offset %d: %d bytes left over", errMalformed, id, body.Start(), body.Len())
		}
	}
	if errors.Is(r.Err(), errOverBudget) {
		return &s.featureScan, nil
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("%w: %v", errMalformed, r.Err())
	}
	if lay != nil {
		lay.ImportedGlobals = uint32(len(s.globalsMut)) - lay.Globals
	}
	if s.tables > 1 {
		s.use(abi.FeatureReferenceTypes, place{kind: "module"}, fmt.Sprintf("%d tables", s.tables))
	}
	if s.memories > 1 {
		s.use(abi.FeatureMultimemory, place{kind: "module"}, fmt.Sprintf("%d memories", s.memories))
	}
	return &s.featureScan, nil
}

func (s *scanner) use(f abi.WasmFeature, at place, what string) {
	k := featureKey{f, at}
	if s.seen[k] {
		return
	}
	s.seen[k] = true
	s.uses = append(s.uses, featureUse{f, at, what})
}

func (s *scanner) section(id byte, r *wasmbin.Reader) {
	switch id {
	case 0:
		s.custom(r)
	case 1:
		s.typeSection(r)
	case 2:
		s.importSection(r)
	case 3:
		n := r.U32()
		s.fig.functions = uint64(s.funcImports) + uint64(n)
		s.count(r, s.fig.functions, "functions", budgetFunctions, abi.FunctionsMax)
		for ; n > 0 && r.Err() == nil; n-- {
			r.U32()
		}
	case 4:
		for i, n := uint32(0), r.U32(); i < n && r.Err() == nil; i++ {
			at := place{kind: "table", index: uint32(s.tables)}
			withInit := r.Peek() == 0x40
			if withInit {
				r.Bytes(2) // 0x40 0x00
				s.use(abi.FeatureGC, at, "table with an initializer")
			}
			s.valType(r, at, "table", true)
			s.tableSize(r, at, s.limits(r, at, false))
			if withInit {
				s.expr(r, at)
			}
			s.tables++
		}
	case 5:
		for n := r.U32(); n > 0 && r.Err() == nil; n-- {
			s.limits(r, place{kind: "memory", index: uint32(s.memories)}, true)
			s.memories++
		}
	case 6:
		n := r.U32()
		s.fig.globals = uint64(len(s.globalsMut)) + uint64(n)
		s.count(r, s.fig.globals, "globals", budgetGlobals, abi.GlobalsMax)
		for ; n > 0 && r.Err() == nil; n-- {
			at := place{kind: "global", index: uint32(len(s.globalsMut))}
			s.valType(r, at, "global", false)
			s.globalsMut = append(s.globalsMut, r.Byte() == 1)
			s.expr(r, at)
			if s.lay != nil {
				s.lay.Globals++
			}
		}
	case 7:
		s.exportSection(r)
	case 8:
		r.U32()
	case 9:
		s.elemSection(r)
	case 10:
		s.codeSection(r)
	case 11:
		s.dataSection(r)
	case 12:
		r.U32()
		s.use(abi.FeatureBulkMemory, place{kind: "section", name: "data count"}, "data count section")
	case 13:
		for n := r.U32(); n > 0 && r.Err() == nil; n-- {
			r.Byte()
			r.U32()
		}
		s.use(abi.FeatureExceptionHandling, place{kind: "section", name: "tag"}, "tag section")
	default:
		r.Fail("unknown section id %d", id)
	}
}

// custom reads the function names of the "name" section; any other custom
// section, or a name section it cannot read, is left alone (names are
// optional).
func (s *scanner) custom(r *wasmbin.Reader) {
	if r.Name() != "name" || r.Err() != nil {
		r.SkipRest()
		return
	}
	for r.More() && r.Err() == nil {
		id := r.Byte()
		sub := r.Sub(int(r.U32()))
		if id != 1 {
			continue
		}
		names := map[uint32]string{}
		for n := sub.U32(); n > 0 && sub.Err() == nil; n-- {
			idx := sub.U32()
			name := sub.Bytes(int(sub.U32()))
			if idx < abi.FunctionsMax { // no more functions than that to name
				names[idx] = string(name)
			}
		}
		if sub.Err() == nil {
			s.funcNames = names
		}
	}
	r.SkipRest()
}

func (s *scanner) typeSection(r *wasmbin.Reader) {
	n := r.U32()
	s.fig.types = uint64(n)
	s.count(r, s.fig.types, "types", budgetTypes, abi.TypesMax)
	for ; n > 0 && r.Err() == nil; n-- {
		at := place{kind: "type", index: uint32(len(s.types))}
		switch form := r.Peek(); form {
		case 0x4E: // rec group
			r.Byte()
			s.use(abi.FeatureGC, at, "rec type group")
			for m := r.U32(); m > 0 && r.Err() == nil; m-- {
				s.subType(r, place{kind: "type", index: uint32(len(s.types))})
			}
		default:
			s.subType(r, at)
		}
	}
}

func (s *scanner) subType(r *wasmbin.Reader, at place) {
	if form := r.Peek(); form == 0x50 || form == 0x4F {
		r.Byte()
		s.use(abi.FeatureGC, at, "subtype")
		for n := r.U32(); n > 0 && r.Err() == nil; n-- {
			r.U32()
		}
	}
	multi := false
	switch form := r.Byte(); form {
	case 0x60:
		params := r.U32()
		for i := uint32(0); i < params && r.Err() == nil; i++ {
			s.valType(r, at, "param", false)
		}
		results := r.U32()
		for i := uint32(0); i < results && r.Err() == nil; i++ {
			s.valType(r, at, "result", false)
		}
		if results > 1 {
			s.use(abi.FeatureMultivalue, at, fmt.Sprintf("%d results", results))
		}
		multi = params > 0 || results > 1
	case 0x5F:
		s.use(abi.FeatureGC, at, "struct type")
		for n := r.U32(); n > 0 && r.Err() == nil; n-- {
			s.fieldType(r, at)
		}
	case 0x5E:
		s.use(abi.FeatureGC, at, "array type")
		s.fieldType(r, at)
	default:
		r.Fail("unknown type form 0x%02x", form)
	}
	s.types = append(s.types, multi)
}

func (s *scanner) fieldType(r *wasmbin.Reader, at place) {
	if b := r.Peek(); b == 0x78 || b == 0x77 { // i8, i16
		r.Byte()
	} else {
		s.valType(r, at, "field", false)
	}
	r.Byte() // mutability
}

func (s *scanner) importSection(r *wasmbin.Reader) {
	for n := r.U32(); n > 0 && r.Err() == nil; n-- {
		module, name := r.Name(), r.Name()
		at := place{kind: "import", name: module + "." + name}
		switch kind := r.Byte(); kind {
		case 0:
			r.U32()
			s.funcImports++
			if module == abi.Module {
				s.k32Imports = append(s.k32Imports, name)
			}
		case 1:
			s.valType(r, at, "table", true)
			s.tableSize(r, at, s.limits(r, at, false))
			s.tables++
		case 2:
			s.limits(r, at, true)
			s.memories++
		case 3:
			s.valType(r, at, "global", false)
			mut := r.Byte() == 1
			if mut {
				s.use(abi.FeatureMutableGlobals, at, "mutable global import")
			}
			s.globalsMut = append(s.globalsMut, mut)
		case 4:
			r.Byte()
			r.U32()
			s.use(abi.FeatureExceptionHandling, at, "tag import")
		default:
			r.Fail("unknown import kind %d", kind)
		}
	}
	s.count(r, uint64(s.funcImports), "imported functions", budgetFunctions, abi.FunctionsMax)
	s.count(r, uint64(len(s.globalsMut)), "imported globals", budgetGlobals, abi.GlobalsMax)
}

func (s *scanner) exportSection(r *wasmbin.Reader) {
	for n := r.U32(); n > 0 && r.Err() == nil; n-- {
		name := r.Name()
		kind, idx := r.Byte(), r.U32()
		if s.lay != nil {
			s.lay.Exports = append(s.lay.Exports, name)
		}
		switch kind {
		case 0:
			if _, ok := s.exportName[idx]; !ok && idx < abi.FunctionsMax {
				s.exportName[idx] = name
			}
		case 3:
			if int(idx) < len(s.globalsMut) && s.globalsMut[idx] {
				s.use(abi.FeatureMutableGlobals, place{kind: "export", name: name}, "mutable global export")
			}
		case 4:
			s.use(abi.FeatureExceptionHandling, place{kind: "export", name: name}, "tag export")
		}
	}
}

// limits reads the limits of a memory or a table and returns the minimum.
func (s *scanner) limits(r *wasmbin.Reader, at place, memory bool) (min uint64) {
	if flags := r.Peek(); flags&^0x07 != 0 {
		r.Byte()
		r.Fail("unknown limits flags 0x%02x", flags)
		return 0
	}
	flags, min, _ := r.Limits()
	if flags&0x02 != 0 {
		s.use(abi.FeatureThreads, at, "shared memory")
	}
	if flags&0x04 != 0 {
		what := "64-bit memory"
		if !memory {
			what = "64-bit table"
		}
		s.use(abi.FeatureMemory64, at, what)
	}
	return min
}

func (s *scanner) elemSection(r *wasmbin.Reader) {
	for i, n := uint32(0), r.U32(); i < n && r.Err() == nil; i++ {
		at := place{kind: "element segment", index: i}
		flags := r.U32()
		if flags > 7 {
			r.Fail("unknown element segment flags %d", flags)
			return
		}
		passive, explicitTable, exprs := flags&1 != 0, flags&2 != 0, flags&4 != 0
		switch {
		case passive && explicitTable:
			s.use(abi.FeatureReferenceTypes, at, "declarative element segment")
		case passive:
			s.use(abi.FeatureBulkMemory, at, "passive element segment")
		}
		if !passive {
			if explicitTable {
				if t := r.U32(); t != 0 {
					s.use(abi.FeatureReferenceTypes, at, fmt.Sprintf("element segment for table %d", t))
				}
			}
			s.expr(r, at)
		}
		if passive || explicitTable {
			if exprs {
				s.valType(r, at, "element", true)
			} else if kind := r.Byte(); kind != 0 {
				r.Fail("unknown element kind %d", kind)
			}
		}
		s.inElemExprs = true
		for m := r.U32(); m > 0 && r.Err() == nil; m-- {
			if exprs {
				s.expr(r, at)
			} else {
				r.U32()
			}
		}
		s.inElemExprs = false
	}
}

func (s *scanner) dataSection(r *wasmbin.Reader) {
	for i, n := uint32(0), r.U32(); i < n && r.Err() == nil; i++ {
		at := place{kind: "data segment", index: i}
		switch flags := r.U32(); flags {
		case 0:
			s.expr(r, at)
		case 1:
			s.use(abi.FeatureBulkMemory, at, "passive data segment")
		case 2:
			if m := r.U32(); m != 0 {
				s.use(abi.FeatureMultimemory, at, fmt.Sprintf("data segment for memory %d", m))
			}
			s.expr(r, at)
		default:
			r.Fail("unknown data segment flags %d", flags)
		}
		r.Bytes(int(r.U32()))
	}
}

func (s *scanner) codeSection(r *wasmbin.Reader) {
	n := r.U32()
	s.count(r, uint64(s.funcImports)+uint64(n), "functions", budgetFunctions, abi.FunctionsMax)
	for i := uint32(0); i < n && r.Err() == nil; i++ {
		at := place{kind: "function", index: s.funcImports + i}
		size := r.U32()
		body := r.Sub(int(size))
		if r.Err() != nil {
			return
		}
		s.functionBody(r, body, at, size)
		var u *undecodableError
		switch {
		case errors.Is(body.Err(), errOverBudget): // named; the next function
		case errors.As(body.Err(), &u):
			s.undecoded = append(s.undecoded, undecodable{at, u.what, u.offset})
		case body.Err() != nil:
			r.Stop(body.Err())
			return
		case body.More():
			r.Fail("function %d: code ends before its body does", at.index)
			return
		}
	}
}

// undecodableError stops the scan of one function at an instruction it
// cannot read.
type undecodableError struct {
	what   string
	offset int
}

func (e *undecodableError) Error() string {
	return fmt.Sprintf("cannot decode %s at offset %d", e.what, e.offset)
}

// valType reads a value type; funcref and externref are MVP in a table's
// type (inTable) and reference-types everywhere else.
func (s *scanner) valType(r *wasmbin.Reader, at place, what string, inTable bool) {
	switch b, _ := r.ValType(); b {
	case 0x7F, 0x7E, 0x7D, 0x7C: // i32 i64 f32 f64
	case 0x7B:
		s.use(abi.FeatureSIMD, at, "v128 "+what)
	case 0x70:
		if !inTable {
			s.use(abi.FeatureReferenceTypes, at, "funcref "+what)
		}
	case 0x6F:
		s.use(abi.FeatureReferenceTypes, at, "externref "+what)
	case 0x69, 0x74: // exnref, nullexnref
		s.use(abi.FeatureExceptionHandling, at, "exnref "+what)
	case 0x63, 0x64: // (ref null ht), (ref ht)
		s.use(abi.FeatureGC, at, "typed reference "+what)
	case 0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x71, 0x72, 0x73: // arrayref … anyref, nullref …
		s.use(abi.FeatureGC, at, "GC reference "+what)
	default:
		if r.Err() == nil {
			r.Fail("unknown value type 0x%02x", b)
		}
	}
}

// blockType reads the type of a block, loop, if, try or try_table.
func (s *scanner) blockType(r *wasmbin.Reader, at place) {
	b := r.Peek()
	switch {
	case b == 0x40:
		r.Byte()
	case b&0x80 == 0 && b >= 0x40: // a one-byte negative number: a value type
		s.valType(r, at, "block type", false)
	default:
		idx := r.S33()
		if idx >= 0 && idx < int64(len(s.types)) && s.types[idx] {
			s.use(abi.FeatureMultivalue, at, "block with params or several results")
		}
	}
}

// memarg reads the alignment (with its memory index flag) and offset of a
// load or store.
func (s *scanner) memarg(r *wasmbin.Reader, at place) {
	if align := r.U32(); align&0x40 != 0 {
		if m := r.U32(); m != 0 {
			s.use(abi.FeatureMultimemory, at, fmt.Sprintf("access to memory %d", m))
		}
	}
	r.U64() // 64 bits with memory64
}

// memIndex reads the memory index of memory.size, memory.grow and the bulk
// memory instructions.
func (s *scanner) memIndex(r *wasmbin.Reader, at place, op string) {
	if m := r.U32(); m != 0 {
		s.use(abi.FeatureMultimemory, at, fmt.Sprintf("%s on memory %d", op, m))
	}
}

// tableIndex reads a table index; a table other than 0 is reference-types.
func (s *scanner) tableIndex(r *wasmbin.Reader, at place, op string) {
	if t := r.U32(); t != 0 {
		s.use(abi.FeatureReferenceTypes, at, fmt.Sprintf("%s on table %d", op, t))
	}
}

// expr reads instructions up to the end that closes the expression.
func (s *scanner) expr(r *wasmbin.Reader, at place) {
	depth := 0
	visit := s.lay != nil && s.inBody
	for r.Err() == nil {
		off := r.Offset()
		op := r.Byte()
		if r.Err() != nil {
			return
		}
		done := s.instruction(r, at, op, off, &depth)
		if visit && r.Err() == nil {
			s.lay.visit(r, op, off)
		}
		if done {
			return
		}
	}
}

// instruction reads the immediates of the instruction op at offset off,
// within blocks depth deep; true once the expression has ended (or cannot
// be read on).
func (s *scanner) instruction(r *wasmbin.Reader, at place, op byte, off int, depth *int) bool {
	switch {
	case op == 0x00, op == 0x01, op == 0x05, op == 0x0F, op == 0x1A, op == 0x1B:
		// unreachable nop else return drop select
	case op == 0x02, op == 0x03, op == 0x04: // block loop if
		s.blockType(r, at)
		*depth++
		if !s.enterBlock(r, at, *depth, op == 0x04) {
			return true
		}
	case op == 0x06:
		s.use(abi.FeatureExceptionHandling, at, "try")
		s.blockType(r, at)
		*depth++
		if !s.enterBlock(r, at, *depth, false) {
			return true
		}
	case op == 0x07, op == 0x08, op == 0x09: // catch throw rethrow
		s.use(abi.FeatureExceptionHandling, at, [...]string{"catch", "throw", "rethrow"}[op-0x07])
		r.U32()
	case op == 0x0A:
		s.use(abi.FeatureExceptionHandling, at, "throw_ref")
	case op == 0x0B: // end
		if *depth == 0 {
			return true
		}
		*depth--
	case op == 0x0C, op == 0x0D: // br br_if
		r.U32()
	case op == 0x0E: // br_table
		n := r.U32()
		if !s.brTableWithin(r, at, n) {
			return true
		}
		for ; n > 0 && r.Err() == nil; n-- {
			r.U32()
		}
		r.U32()
	case op == 0x10: // call
		r.U32()
	case op == 0x11:
		r.U32()
		s.tableIndex(r, at, "call_indirect")
	case op == 0x12:
		s.use(abi.FeatureTailCall, at, "return_call")
		r.U32()
	case op == 0x13:
		s.use(abi.FeatureTailCall, at, "return_call_indirect")
		r.U32()
		s.tableIndex(r, at, "return_call_indirect")
	case op == 0x14:
		s.use(abi.FeatureGC, at, "call_ref")
		r.U32()
	case op == 0x15:
		s.use(abi.FeatureTailCall, at, "return_call_ref")
		s.use(abi.FeatureGC, at, "return_call_ref")
		r.U32()
	case op == 0x18:
		s.use(abi.FeatureExceptionHandling, at, "delegate")
		r.U32()
		if *depth == 0 {
			r.Fail("delegate outside a try")
			return true
		}
		*depth--
	case op == 0x19:
		s.use(abi.FeatureExceptionHandling, at, "catch_all")
	case op == 0x1C:
		s.use(abi.FeatureReferenceTypes, at, "typed select")
		for n := r.U32(); n > 0 && r.Err() == nil; n-- {
			s.valType(r, at, "select type", false)
		}
	case op == 0x1F:
		s.use(abi.FeatureExceptionHandling, at, "try_table")
		s.blockType(r, at)
		for n := r.U32(); n > 0 && r.Err() == nil; n-- {
			switch kind := r.Byte(); kind {
			case 0, 1: // catch, catch_ref: tag and label
				r.U32()
				r.U32()
			case 2, 3: // catch_all, catch_all_ref: label
				r.U32()
			default:
				r.Fail("unknown try_table catch kind %d", kind)
			}
		}
		*depth++
		if !s.enterBlock(r, at, *depth, false) {
			return true
		}
	case op >= 0x20 && op <= 0x24: // local.get … global.set
		r.U32()
	case op == 0x25, op == 0x26:
		s.use(abi.FeatureReferenceTypes, at, [...]string{"table.get", "table.set"}[op-0x25])
		r.U32()
	case op >= 0x28 && op <= 0x3E: // loads and stores
		s.memarg(r, at)
	case op == 0x3F, op == 0x40:
		s.memIndex(r, at, [...]string{"memory.size", "memory.grow"}[op-0x3F])
	case op == 0x41:
		r.S33() // i32.const: at most 5 bytes
	case op == 0x42:
		r.S64()
	case op == 0x43:
		r.Bytes(4)
	case op == 0x44:
		r.Bytes(8)
	case op >= 0x45 && op <= 0xBF: // numeric
	case op >= 0xC0 && op <= 0xC4:
		s.use(abi.FeatureSignExt, at, signExtNames[op-0xC0])
	case op == 0xD0:
		r.S33()
		if !s.inElemExprs {
			s.use(abi.FeatureReferenceTypes, at, "ref.null")
		}
	case op == 0xD1:
		s.use(abi.FeatureReferenceTypes, at, "ref.is_null")
	case op == 0xD2:
		r.U32()
		if !s.inElemExprs {
			s.use(abi.FeatureReferenceTypes, at, "ref.func")
		}
	case op == 0xD3, op == 0xD4:
		s.use(abi.FeatureGC, at, [...]string{"ref.eq", "ref.as_non_null"}[op-0xD3])
	case op == 0xD5, op == 0xD6:
		s.use(abi.FeatureGC, at, [...]string{"br_on_null", "br_on_non_null"}[op-0xD5])
		r.U32()
	case op == 0xFB:
		s.gcOp(r, at, off)
	case op == 0xFC:
		s.miscOp(r, at, off)
	case op == 0xFD:
		s.simdOp(r, at, off)
	case op == 0xFE:
		s.atomicOp(r, at, off)
	default:
		r.Stop(&undecodableError{fmt.Sprintf("opcode 0x%02x", op), off})
	}
	return false
}

var signExtNames = [...]string{"i32.extend8_s", "i32.extend16_s", "i64.extend8_s", "i64.extend16_s", "i64.extend32_s"}

func (s *scanner) gcOp(r *wasmbin.Reader, at place, off int) {
	sub := r.U32()
	if sub > 30 {
		r.Stop(&undecodableError{fmt.Sprintf("opcode 0xfb %d", sub), off})
		return
	}
	s.use(abi.FeatureGC, at, gcNames[sub])
	switch sub {
	case 0, 1, 6, 7, 11, 12, 13, 14, 16: // a type index
		r.U32()
	case 2, 3, 4, 5, 8, 9, 10, 17, 18, 19: // two indexes
		r.U32()
		r.U32()
	case 20, 21, 22, 23: // ref.test, ref.cast: a heap type
		r.S33()
	case 24, 25: // br_on_cast(_fail): flags, label, two heap types
		r.Byte()
		r.U32()
		r.S33()
		r.S33()
	}
}

var gcNames = [...]string{
	"struct.new", "struct.new_default", "struct.get", "struct.get_s", "struct.get_u", "struct.set",
	"array.new", "array.new_default", "array.new_fixed", "array.new_data", "array.new_elem",
	"array.get", "array.get_s", "array.get_u", "array.set", "array.len", "array.fill", "array.copy",
	"array.init_data", "array.init_elem", "ref.test", "ref.test", "ref.cast", "ref.cast",
	"br_on_cast", "br_on_cast_fail", "any.convert_extern", "extern.convert_any",
	"ref.i31", "i31.get_s", "i31.get_u",
}

func (s *scanner) miscOp(r *wasmbin.Reader, at place, off int) {
	sub := r.U32()
	if sub > 17 {
		r.Stop(&undecodableError{fmt.Sprintf("opcode 0xfc %d", sub), off})
		return
	}
	name := miscNames[sub]
	switch {
	case sub <= 7:
		s.use(abi.FeatureNontrappingFloatToInt, at, name)
	case sub <= 14:
		s.use(abi.FeatureBulkMemory, at, name)
	default:
		s.use(abi.FeatureReferenceTypes, at, name)
	}
	switch sub {
	case 8: // memory.init data memory
		r.U32()
		s.memIndex(r, at, name)
	case 9, 13: // data.drop, elem.drop
		r.U32()
	case 10: // memory.copy dst src
		s.memIndex(r, at, name)
		s.memIndex(r, at, name)
	case 11:
		s.memIndex(r, at, name)
	case 12: // table.init elem table
		r.U32()
		s.tableIndex(r, at, name)
	case 14: // table.copy dst src
		s.tableIndex(r, at, name)
		s.tableIndex(r, at, name)
	case 15, 16, 17:
		r.U32()
	}
}

var miscNames = [...]string{
	"i32.trunc_sat_f32_s", "i32.trunc_sat_f32_u", "i32.trunc_sat_f64_s", "i32.trunc_sat_f64_u",
	"i64.trunc_sat_f32_s", "i64.trunc_sat_f32_u", "i64.trunc_sat_f64_s", "i64.trunc_sat_f64_u",
	"memory.init", "data.drop", "memory.copy", "memory.fill", "table.init", "elem.drop", "table.copy",
	"table.grow", "table.size", "table.fill",
}

func (s *scanner) simdOp(r *wasmbin.Reader, at place, off int) {
	sub := r.U32()
	if sub > 0x113 { // relaxed SIMD ends at 0x113
		r.Stop(&undecodableError{fmt.Sprintf("opcode 0xfd %d", sub), off})
		return
	}
	s.use(abi.FeatureSIMD, at, simdName(sub))
	switch {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		s.memarg(r, at)
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		r.Bytes(16)
	case sub >= 21 && sub <= 34: // extract_lane, replace_lane
		r.Byte()
	case sub >= 84 && sub <= 91: // load_lane, store_lane
		s.memarg(r, at)
		r.Byte()
	}
}

var simdNames = map[uint32]string{
	0: "v128.load", 1: "v128.load8x8_s", 2: "v128.load8x8_u", 3: "v128.load16x4_s", 4: "v128.load16x4_u",
	5: "v128.load32x2_s", 6: "v128.load32x2_u", 7: "v128.load8_splat", 8: "v128.load16_splat",
	9: "v128.load32_splat", 10: "v128.load64_splat", 11: "v128.store", 12: "v128.const", 13: "i8x16.shuffle",
	14: "i8x16.swizzle", 15: "i8x16.splat", 16: "i16x8.splat", 17: "i32x4.splat", 18: "i64x2.splat",
	19: "f32x4.splat", 20: "f64x2.splat", 84: "v128.load8_lane", 85: "v128.load16_lane",
	86: "v128.load32_lane", 87: "v128.load64_lane", 88: "v128.store8_lane", 89: "v128.store16_lane",
	90: "v128.store32_lane", 91: "v128.store64_lane", 92: "v128.load32_zero", 93: "v128.load64_zero",
	0xE4: "f32x4.add",
}

func simdName(sub uint32) string {
	if n, ok := simdNames[sub]; ok {
		return n
	}
	return fmt.Sprintf("opcode 0xfd %d", sub)
}

func (s *scanner) atomicOp(r *wasmbin.Reader, at place, off int) {
	sub := r.U32()
	switch {
	case sub <= 2, sub >= 0x10 && sub <= 0x4E:
		s.memarg(r, at)
	case sub == 3: // atomic.fence
		r.Byte()
	default:
		r.Stop(&undecodableError{fmt.Sprintf("opcode 0xfe %d", sub), off})
		return
	}
	s.use(abi.FeatureThreads, at, atomicName(sub))
}

// atomicName names the threads instructions: seven widths for each of
// load, store and the read-modify-writes.
func atomicName(sub uint32) string {
	switch sub {
	case 0:
		return "memory.atomic.notify"
	case 1:
		return "memory.atomic.wait32"
	case 2:
		return "memory.atomic.wait64"
	case 3:
		return "atomic.fence"
	}
	ops := []string{"load", "store", "rmw.add", "rmw.sub", "rmw.and", "rmw.or", "rmw.xor", "rmw.xchg", "rmw.cmpxchg"}
	op, width := ops[(sub-0x10)/7], (sub-0x10)%7
	if width < 2 {
		return [...]string{"i32", "i64"}[width] + ".atomic." + op
	}
	typ, bits := [...]string{"i32", "i32", "i64", "i64", "i64"}[width-2], [...]string{"8", "16", "8", "16", "32"}[width-2]
	if rmw, ok := strings.CutPrefix(op, "rmw."); ok {
		return typ + ".atomic.rmw" + bits + "." + rmw + "_u"
	}
	return typ + ".atomic." + op + bits + "_u"
}

// features lists the features used, in the order of abi.WasmFeatures.
func (fs *featureScan) features() []abi.WasmFeature {
	var used []abi.WasmFeature
	for _, info := range abi.WasmFeatures {
		if slices.ContainsFunc(fs.uses, func(u featureUse) bool { return u.feature == info.Feature }) {
			used = append(used, info.Feature)
		}
	}
	return used
}

// CapabilityImports lists the host functions that wasm imports from module
// k32 and that need a capability (abi.Function.Capability), in import order;
// a container that does not add the capability gets K32_ERR_PERM from them.
func CapabilityImports(wasm []byte) ([]abi.Function, error) {
	if !bytes.HasPrefix(wasm, []byte(wasmbin.Magic)) {
		return nil, errors.New("not a WebAssembly binary")
	}
	scan, err := scanFeatures(wasm)
	if err != nil {
		return nil, err
	}
	if problems, _ := scan.budgetProblems(); len(problems) > 0 {
		return nil, errors.New(problems[0]) // the scan stopped: its imports may be partial
	}
	var fns []abi.Function
	for _, name := range scan.k32Imports {
		if f, ok := abi.Lookup(name); ok && f.Capability != abi.NoCapability {
			fns = append(fns, f)
		}
	}
	return fns, nil
}

// maxNamedPerFeature bounds how many places one problem names.
const maxNamedPerFeature = 3

// problems words each feature used that runs is false for, one sentence per
// feature naming where it is first used, and each undecodable instruction.
func (fs *featureScan) problems(runs func(abi.WasmFeature) bool) (problems []string, refused []abi.WasmFeature) {
	for _, f := range fs.features() {
		if runs(f) {
			continue
		}
		refused = append(refused, f)
		var at []featureUse
		for _, u := range fs.uses {
			if u.feature == f {
				at = append(at, u)
			}
		}
		// Named functions first: they are what an author recognises.
		slices.SortStableFunc(at, func(a, b featureUse) int { return fs.rank(a.at) - fs.rank(b.at) })
		msg := fmt.Sprintf("%s uses %s (%s)", fs.describe(at[0].at), f, at[0].what)
		if len(at) > 1 {
			var others []string
			for _, u := range at[1:min(len(at), maxNamedPerFeature)] {
				others = append(others, fmt.Sprintf("%s (%s)", fs.describe(u.at), u.what))
			}
			if rest := len(at) - maxNamedPerFeature; rest > 0 {
				others = append(others, fmt.Sprintf("%d more", rest))
			}
			verb := "so does "
			if len(at) > 2 {
				verb = "so do "
			}
			if n := len(others); n > 1 {
				others = append(others[:n-2], others[n-2]+" and "+others[n-1])
			}
			msg += ", and " + verb + strings.Join(others, ", ")
		}
		problems = append(problems, msg+"; the boards' interpreter does not run it (see docs/boards.md)")
	}
	for _, u := range fs.undecoded {
		problems = append(problems, fmt.Sprintf("%s: cannot decode %s at offset 0x%x: a feature the boards' interpreter does not run, or a damaged module",
			fs.describe(u.at), u.what, u.offset))
	}
	return problems, refused
}

// rank orders places in a problem: functions with a name, then the rest,
// then the toolchain's functions, then functions known by their index only.
func (fs *featureScan) rank(p place) int {
	name := fs.funcNames[p.index]
	if name == "" {
		name = fs.exportName[p.index]
	}
	switch {
	case p.kind != "function":
		return 1
	case strings.HasPrefix(name, "__"):
		return 2 // the toolchain's (__wasm_init_memory): after the author's own
	case name != "":
		return 0
	}
	return 3
}

// describe names a place: a function by the name section, else by its
// export, else by its index.
func (fs *featureScan) describe(p place) string {
	switch {
	case p.kind == "function":
		if n, ok := fs.funcNames[p.index]; ok {
			return fmt.Sprintf("function %q", n)
		}
		if n, ok := fs.exportName[p.index]; ok {
			return fmt.Sprintf("function %q", n)
		}
		return fmt.Sprintf("function[%d]", p.index)
	case p.kind == "module":
		return "the module"
	case p.name != "":
		return p.kind + " " + p.name
	}
	return fmt.Sprintf("%s %d", p.kind, p.index)
}
