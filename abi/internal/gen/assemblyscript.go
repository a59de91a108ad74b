package gen

import (
	"fmt"
	"strings"

	"github.com/kube32/kube32/abi"
)

// asTypes are the AssemblyScript types of the ABI's value types: a pointer
// is a usize, an offset into the pod's linear memory.
var asTypes = map[abi.Type]string{
	abi.Ptr: "usize",
	abi.U32: "u32",
	abi.I32: "i32",
	abi.I64: "i64",
}

// AssemblyScriptSys renders sdk/assemblyscript/k32/sys.ts: the error
// codes, the log levels and an @external declaration of every host
// function.
func AssemblyScriptSys() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n\n", generatedBy)
	b.WriteString(`// The raw ABI: the host functions a pod imports from module "k32", the
// K32_ERR_* codes and the log levels. Reference: docs/abi.md. The rest of the
// SDK wraps these in functions over strings and arrays; use them directly only
// for what the wrappers do not offer.
//
// Pointers and lengths are offsets into the pod's linear memory. Getters take
// (..., out, cap), copy min(len, cap) bytes and return the FULL length; a
// negative result is a K32_ERR_* code.

`)
	writeConstants(&b, asDoc, "export const %s: i32 = %d;\n")
	// The decorator is AssemblyScript's; TypeScript's language service
	// would flag it on a declaration.
	err := writeFunctions(&b, functionStyle{decl: asDecl, doc: asDoc, attr: "// @ts-ignore: decorator\n@external(%q, %q)\n", blankFirst: true})
	if err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// asDecl is the AssemblyScript declaration of host function f.
func asDecl(f abi.Function) (string, error) {
	var params []string
	for _, p := range f.Params {
		t, ok := asTypes[p.Type]
		if !ok {
			return "", fmt.Errorf("%s.%s: type %q has no AssemblyScript type", f.Name, p.Name, p.Type)
		}
		params = append(params, p.Name+": "+t)
	}
	result, err := resultType(f, asTypes, "AssemblyScript")
	if err != nil {
		return "", err
	}
	if result == "" {
		result = "void"
	}
	return "export declare function " + f.Name + "(" + strings.Join(params, ", ") + "): " + result, nil
}

// asDoc renders text as a /** */ doc comment wrapped to 80 columns.
func asDoc(indent, text string) string {
	return blockComment(indent, "/**", text)
}
