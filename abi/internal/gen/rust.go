package gen

import (
	"fmt"
	"strings"

	"github.com/kube32/kube32/abi"
)

// rustScalarTypes are the Rust types of the ABI's value types.
var rustScalarTypes = map[abi.Type]string{
	abi.U32: "u32",
	abi.I32: "i32",
	abi.I64: "i64",
}

// rustPointerType is the Rust type of a pointer parameter, derived from its
// C type so that the two SDKs agree on which pointers the host writes
// through: a const C pointer is *const u8, uint32_t* is *mut u32, any other
// pointer *mut u8.
func rustPointerType(fn string, p abi.Param) (string, error) {
	c, err := cParamType(fn, p)
	if err != nil {
		return "", err
	}
	switch {
	case strings.HasPrefix(c, "const "):
		return "*const u8", nil
	case c == "uint32_t*":
		return "*mut u32", nil
	}
	return "*mut u8", nil
}

// RustSys renders sdk/rust/src/sys.rs: the error codes, the log levels and
// the extern block of every host function.
func RustSys() ([]byte, error) {
	if err := checkCPointerTypes(); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n\n", generatedBy)
	b.WriteString(`//! The raw ABI: the host functions a pod imports from module "k32", the
//! K32_ERR_* codes and the log levels. Reference: docs/abi.md. The rest of
//! the crate wraps these in safe functions; use them directly only for what
//! the wrappers do not offer.
//!
//! Pointers and lengths are offsets into the pod's linear memory. Getters
//! take (..., out, cap), copy min(len, cap) bytes and return the FULL
//! length; a negative result is a K32_ERR_* code.

`)
	writeConstants(&b, rustDoc, "pub const %s: i32 = %d;\n")
	fmt.Fprintf(&b, "\n#[link(wasm_import_module = %q)]\nextern \"C\" {\n", abi.Module)
	if err := writeFunctions(&b, functionStyle{decl: rustDecl, doc: rustDoc, indent: "    "}); err != nil {
		return nil, err
	}
	b.WriteString("}\n")
	return []byte(b.String()), nil
}

// rustDecl is the Rust declaration of host function f inside the extern
// block.
func rustDecl(f abi.Function) (string, error) {
	var params []string
	for _, p := range f.Params {
		t, ok := rustScalarTypes[p.Type]
		if p.Type == abi.Ptr {
			var err error
			if t, err = rustPointerType(f.Name, p); err != nil {
				return "", err
			}
		} else if !ok {
			return "", fmt.Errorf("%s.%s: type %q has no Rust type", f.Name, p.Name, p.Type)
		}
		params = append(params, p.Name+": "+t)
	}
	decl := "pub fn " + f.Name + "(" + strings.Join(params, ", ") + ")"
	result, err := resultType(f, rustScalarTypes, "Rust")
	if err != nil {
		return "", err
	}
	if result != "" {
		decl += " -> " + result
	}
	return decl, nil
}

// rustDoc renders text as /// doc comment lines wrapped to 80 columns.
func rustDoc(indent, text string) string {
	var b strings.Builder
	for _, l := range wrap(text, 80-len(indent)-4) {
		b.WriteString(indent + "/// " + l + "\n")
	}
	return b.String()
}
