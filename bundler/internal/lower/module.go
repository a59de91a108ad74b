package lower

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
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

// sections splits a binary past its 8-byte preamble. It refuses one of
// more than abi.SectionsMax sections before it reads further, so that what
// the lowering keeps per section stays small whatever the file holds.
func sections(bin []byte) ([]section, error) {
	if len(bin) <= wasmbin.HeaderLen {
		return nil, nil
	}
	r := wasmbin.NewReaderAt(bin[wasmbin.HeaderLen:], wasmbin.HeaderLen)
	var out []section
	for r.More() {
		if len(out) == abi.SectionsMax {
			return nil, fmt.Errorf("more than %d sections, over the limit of abi.SectionsMax: no toolchain writes so many", abi.SectionsMax)
		}
		start := r.Offset()
		id := r.Byte()
		body := r.Bytes(int(r.U32()))
		if r.Err() != nil {
			return nil, fmt.Errorf("section %d: %w", id, r.Err())
		}
		out = append(out, section{id: id, raw: bin[start:r.Offset()], body: body})
	}
	return out, nil
}

// The host functions and exports of the ABI by WIT name, and the core
// names of the exports: a lookup per import or export costs no
// allocation, however many a module lists.
var (
	witFunctions = map[string]abi.Function{}
	witExports   = map[string]abi.Export{}
	coreExports  = map[string]bool{}
)

func init() {
	for _, f := range abi.Functions {
		witFunctions[abi.WITName(f.Name)] = f
	}
	for _, e := range abi.Exports {
		witExports[abi.WITName(e.Name)] = e
		coreExports[e.Name] = true
	}
}

// Module returns wasm with its WIT names lowered to the board's: every
// import from kube32:app/k32@VERSION becomes an import from module "k32"
// with the host function's core name, and, in a module that uses WIT names
// (it imports from kube32:app or exports a kebab-case export of world pod),
// the world's exports get their core names (k32-handle is k32_handle,
// initialize is _initialize). Only the import and export sections are
// rewritten. A module without WIT names, or a binary that is not a core
// module, is returned as it is: the module check words what is wrong with
// it. The sections are rewritten as they are read, into one buffer of
// about the module's size: nothing is kept per import or export.
func Module(wasm []byte) ([]byte, error) {
	if !bytes.HasPrefix(wasm, []byte(wasmbin.Header)) {
		return wasm, nil
	}
	secs, err := sections(wasm)
	if err != nil {
		return nil, err
	}
	// Lowering never lengthens an import (a WIT interface's name is
	// longer than "k32" and the "k32_" a function gains); an export gains
	// at most one byte ("_initialize"), a section's size a byte of LEB128.
	out := make([]byte, 0, len(wasm)+len(abi.Exports)+2*len(secs))
	out = append(out, wasm[:8]...)
	lw := &lowering{seen: map[string]string{}}
	for _, s := range secs {
		var body []byte
		switch s.id {
		case sectionImport:
			body, err = lw.imports(s.body)
		case sectionExport:
			body, err = lw.exports(s.body)
		default:
			out = append(out, s.raw...)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = wasmbin.AppendSection(out, s.id, body)
	}
	if !lw.witNamed {
		return wasm, nil
	}
	if lw.dup != nil {
		return nil, lw.dup
	}
	return out, nil
}

// lowering is what Module learns of a module as it rewrites its sections.
type lowering struct {
	witNamed bool // it imports from kube32:app or exports a kebab-case WIT export
	// seen maps each core export name of the ABI that an export has once
	// lowered to the name it had: two exports that become one name are an
	// error (dup) in a module that uses WIT names.
	seen map[string]string
	dup  error
}

// imports rewrites an import section: imports of package kube32:app get
// the host function's module and core name, the others stay as they are.
func (lw *lowering) imports(body []byte) ([]byte, error) {
	r := wasmbin.NewReader(body)
	n := r.U32()
	out := wasmbin.AppendU32(make([]byte, 0, len(body)+5), n)
	for i := uint32(0); i < n && r.Err() == nil; i++ {
		module, name := r.NameBytes(), r.NameBytes()
		start := r.Offset()
		skipImportDesc(r)
		if r.Err() != nil {
			return nil, fmt.Errorf("import section: import %s %s: %w", module, name, r.Err())
		}
		if bytes.HasPrefix(module, []byte("kube32:")) {
			f, err := importOf(module, name)
			if err != nil {
				return nil, err
			}
			lw.witNamed = true
			out = wasmbin.AppendName(out, abi.Module)
			out = wasmbin.AppendName(out, f.Name)
		} else {
			out = wasmbin.AppendName(out, module)
			out = wasmbin.AppendName(out, name)
		}
		out = append(out, body[start:r.Offset()]...)
	}
	if r.Err() == nil && r.More() {
		r.Fail("bytes after the last import")
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("import section: %w", r.Err())
	}
	return out, nil
}

// exports rewrites an export section: a function exported under a WIT
// name of world pod gets its core name.
func (lw *lowering) exports(body []byte) ([]byte, error) {
	r := wasmbin.NewReader(body)
	n := r.U32()
	out := wasmbin.AppendU32(make([]byte, 0, len(body)+len(abi.Exports)+5), n)
	for i := uint32(0); i < n && r.Err() == nil; i++ {
		name := r.NameBytes()
		start := r.Offset()
		kind := r.Byte()
		r.U32()
		lowered := name
		if ex, ok := witExports[string(name)]; ok {
			lw.witNamed = lw.witNamed || bytes.IndexByte(name, '-') >= 0
			if kind == 0x00 {
				lowered = []byte(ex.Name)
			}
		}
		if coreExports[string(lowered)] && lw.dup == nil {
			if other, dup := lw.seen[string(lowered)]; dup {
				lw.dup = fmt.Errorf("the module exports both %q and %q, which are both %s on the boards", other, name, lowered)
			} else {
				lw.seen[string(lowered)] = string(name)
			}
		}
		out = wasmbin.AppendName(out, lowered)
		out = append(out, body[start:r.Offset()]...)
	}
	if r.Err() == nil && r.More() {
		r.Fail("bytes after the last export")
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("export section: %w", r.Err())
	}
	return out, nil
}

// boardInterface is the one interface of package kube32:app the boards have.
var boardInterface = abi.WITModule()

// importOf returns the host function an import of package kube32:app
// names, without copying its names unless it is refused (lookupImport).
func importOf(module, name []byte) (abi.Function, error) {
	if f, ok := witFunctions[string(name)]; ok && string(module) == boardInterface {
		return f, nil
	}
	return lookupImport(string(module), string(name))
}

// lookupImport returns the host function an import of package kube32:app
// names, or an error naming the interface, version or function the boards
// do not have.
func lookupImport(module, name string) (abi.Function, error) {
	if err := checkInterface("the module", module); err != nil {
		return abi.Function{}, err
	}
	f, ok := witFunctions[name]
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

// skipImportDesc reads past an import descriptor: a function, table,
// memory, global or tag.
func skipImportDesc(r *wasmbin.Reader) {
	switch kind := r.Byte(); kind {
	case 0x00: // function: type index
		r.U32()
	case 0x01: // table: reference type, limits
		r.ValType()
		r.Limits()
	case 0x02: // memory: limits
		r.Limits()
	case 0x03: // global: value type, mutability
		r.ValType()
		r.Byte()
	case 0x04: // tag: attribute, type index
		r.Byte()
		r.U32()
	default:
		r.Fail("unknown import kind 0x%02x", kind)
	}
}
