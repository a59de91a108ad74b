package lower

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kube32/kube32/abi"
)

// The preamble of a binary: the magic, then the version and layer. A core
// module is version 1 layer 0, a component version 0x0d layer 1.
var (
	magic            = []byte("\x00asm")
	coreVersion      = []byte{0x01, 0x00, 0x00, 0x00}
	componentVersion = []byte{0x0d, 0x00, 0x01, 0x00}
)

// Core module section ids.
const (
	sectionImport = 2
	sectionExport = 7
)

// section is one section of a binary: its id, the bytes of the whole section
// (id, size and body) and its body.
type section struct {
	id   byte
	raw  []byte
	body []byte
}

// sections splits a binary past its 8-byte preamble.
func sections(bin []byte) ([]section, error) {
	r := &reader{b: bin, pos: 8}
	var out []section
	for r.more() {
		start := r.pos
		id := r.byte()
		body := r.bytes(int(r.u32()))
		if r.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, r.err)
		}
		out = append(out, section{id: id, raw: bin[start:r.pos], body: body})
	}
	return out, nil
}

// importEntry is one import: its names, and its descriptor copied verbatim.
type importEntry struct {
	module, name string
	desc         []byte
}

// exportEntry is one export: its name, and its kind and index copied
// verbatim.
type exportEntry struct {
	name string
	desc []byte
}

// Module returns wasm with its WIT names lowered to the board's: every
// import from kube32:app/k32@VERSION becomes an import from module "k32"
// with the host function's core name, and, in a module that uses WIT names
// (it imports from kube32:app or exports a kebab-case export of world pod),
// the world's exports get their core names (k32-handle is k32_handle,
// initialize is _initialize). Only the import and export sections are
// rewritten. A module without WIT names, or a binary that is not a core
// module, is returned as it is: the module check words what is wrong with
// it.
func Module(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], magic) || !bytes.Equal(wasm[4:8], coreVersion) {
		return wasm, nil
	}
	secs, err := sections(wasm)
	if err != nil {
		return nil, err
	}
	witNamed := false
	var imports []importEntry
	var exports []exportEntry
	importAt, exportAt := -1, -1
	for i, s := range secs {
		switch s.id {
		case sectionImport:
			if imports, err = readImports(s.body); err != nil {
				return nil, err
			}
			importAt = i
		case sectionExport:
			if exports, err = readExports(s.body); err != nil {
				return nil, err
			}
			exportAt = i
		}
	}
	for i, im := range imports {
		if !strings.HasPrefix(im.module, "kube32:") {
			continue
		}
		f, err := lookupImport(im.module, im.name)
		if err != nil {
			return nil, err
		}
		imports[i].module, imports[i].name = abi.Module, f.Name
		witNamed = true
	}
	for _, e := range exports {
		if _, ok := abi.LookupWITExport(e.name); ok && strings.Contains(e.name, "-") {
			witNamed = true
		}
	}
	if !witNamed {
		return wasm, nil
	}
	seen := map[string]string{}
	for i, e := range exports {
		if ex, ok := abi.LookupWITExport(e.name); ok && e.desc[0] == 0x00 {
			exports[i].name = ex.Name
		}
		if other, dup := seen[exports[i].name]; dup {
			return nil, fmt.Errorf("the module exports both %q and %q, which are both %s on the boards", other, e.name, exports[i].name)
		}
		seen[exports[i].name] = e.name
	}
	out := append([]byte{}, wasm[:8]...)
	for i, s := range secs {
		switch i {
		case importAt:
			out = appendSection(out, s.id, writeImports(imports))
		case exportAt:
			out = appendSection(out, s.id, writeExports(exports))
		default:
			out = append(out, s.raw...)
		}
	}
	return out, nil
}

// lookupImport returns the host function an import of package kube32:app
// names, or an error naming the interface, version or function the boards
// do not have.
func lookupImport(module, name string) (abi.Function, error) {
	if err := checkInterface("the module", module); err != nil {
		return abi.Function{}, err
	}
	f, ok := abi.LookupWIT(name)
	if !ok {
		return abi.Function{}, fmt.Errorf("the module imports %s function %s, which the ABI does not have (docs/abi.md)", module, name)
	}
	return f, nil
}

// checkInterface refuses an interface of package kube32 other than
// kube32:app/k32 at the ABI's version, naming it; who imports it (the
// module, the component) starts the error.
func checkInterface(who, module string) error {
	pkg, rest, _ := strings.Cut(module, "/")
	iface, version, hasVersion := strings.Cut(rest, "@")
	switch {
	case pkg != abi.WITPackage || iface != abi.WITInterface:
		return fmt.Errorf("%s imports %s: the boards have no such interface, only %s", who, module, abi.WITModule())
	case !hasVersion:
		return fmt.Errorf("%s imports %s without a version: the ABI is %s@%s", who, module, abi.WITPackage, abi.Version)
	case version != abi.Version:
		return fmt.Errorf("%s imports %s, version %s, but the ABI is version %s (%s)", who, module, version, abi.Version, abi.WITModule())
	}
	return nil
}

func readImports(body []byte) ([]importEntry, error) {
	r := &reader{b: body}
	n := r.u32()
	var out []importEntry
	for i := uint32(0); i < n && r.err == nil; i++ {
		module, name := r.name(), r.name()
		start := r.pos
		skipImportDesc(r)
		out = append(out, importEntry{module, name, body[start:r.pos]})
		if r.err != nil {
			return nil, fmt.Errorf("import section: import %s %s: %w", module, name, r.err)
		}
	}
	if r.err == nil && r.more() {
		r.fail("bytes after the last import")
	}
	if r.err != nil {
		return nil, fmt.Errorf("import section: %w", r.err)
	}
	return out, nil
}

// skipImportDesc reads past an import descriptor: a function, table,
// memory, global or tag.
func skipImportDesc(r *reader) {
	switch kind := r.byte(); kind {
	case 0x00: // function: type index
		r.u32()
	case 0x01: // table: reference type, limits
		skipValType(r)
		skipLimits(r)
	case 0x02: // memory: limits
		skipLimits(r)
	case 0x03: // global: value type, mutability
		skipValType(r)
		r.byte()
	case 0x04: // tag: attribute, type index
		r.byte()
		r.u32()
	default:
		r.fail("unknown import kind 0x%02x", kind)
	}
}

// skipValType reads past a value type; 0x63 and 0x64 (nullable and
// non-null references) carry a heap type.
func skipValType(r *reader) {
	if t := r.byte(); t == 0x63 || t == 0x64 {
		r.leb(5)
	}
}

// skipLimits reads past table or memory limits: flags (bit 0 a maximum,
// bit 3 a custom page size), the minimum, the maximum, the page size.
func skipLimits(r *reader) {
	flags := r.byte()
	r.leb(10)
	if flags&0x01 != 0 {
		r.leb(10)
	}
	if flags&0x08 != 0 {
		r.u32()
	}
}

func readExports(body []byte) ([]exportEntry, error) {
	r := &reader{b: body}
	n := r.u32()
	var out []exportEntry
	for i := uint32(0); i < n && r.err == nil; i++ {
		name := r.name()
		start := r.pos
		r.byte()
		r.u32()
		out = append(out, exportEntry{name, body[start:r.pos]})
	}
	if r.err == nil && r.more() {
		r.fail("bytes after the last export")
	}
	if r.err != nil {
		return nil, fmt.Errorf("export section: %w", r.err)
	}
	return out, nil
}

func writeImports(imports []importEntry) []byte {
	b := appendU32(nil, uint32(len(imports)))
	for _, im := range imports {
		b = appendName(b, im.module)
		b = appendName(b, im.name)
		b = append(b, im.desc...)
	}
	return b
}

func writeExports(exports []exportEntry) []byte {
	b := appendU32(nil, uint32(len(exports)))
	for _, e := range exports {
		b = appendName(b, e.name)
		b = append(b, e.desc...)
	}
	return b
}

func appendSection(b []byte, id byte, body []byte) []byte {
	b = append(b, id)
	b = appendU32(b, uint32(len(body)))
	return append(b, body...)
}
