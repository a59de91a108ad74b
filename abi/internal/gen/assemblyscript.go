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
	for _, e := range abi.Errors {
		b.WriteString(asDoc("", e.Name+extMark(e.Ext)+": "+e.Doc))
		fmt.Fprintf(&b, "export const %s: i32 = %d;\n", e.Name, int32(e.Code))
	}
	b.WriteString("\n")
	for _, l := range logLevels {
		b.WriteString(asDoc("", "Level of k32_log."))
		fmt.Fprintf(&b, "export const %s: i32 = %d;\n", l.Name, l.Value)
	}
	for _, f := range abi.Functions {
		decl, err := asDecl(f)
		if err != nil {
			return nil, err
		}
		text := f.Name + extMark(f.Ext) + ": " + f.Doc
		if f.Capability != abi.NoCapability {
			text += " Needs capability " + string(f.Capability) + "; without it the call returns K32_ERR_PERM."
		}
		b.WriteString("\n")
		b.WriteString(asDoc("", text))
		// The decorator is AssemblyScript's; TypeScript's language service
		// would flag it on a declaration.
		fmt.Fprintf(&b, "// @ts-ignore: decorator\n@external(%q, %q)\n", abi.Module, f.Name)
		b.WriteString(decl + ";\n")
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
	result := "void"
	switch len(f.Results) {
	case 0:
	case 1:
		t, ok := asTypes[f.Results[0]]
		if !ok {
			return "", fmt.Errorf("%s: result type %q has no AssemblyScript type", f.Name, f.Results[0])
		}
		result = t
	default:
		return "", fmt.Errorf("%s: %d results; AssemblyScript functions return at most one", f.Name, len(f.Results))
	}
	return "export declare function " + f.Name + "(" + strings.Join(params, ", ") + "): " + result, nil
}

// asDoc renders text as a /** */ doc comment wrapped to 80 columns.
func asDoc(indent, text string) string {
	text = strings.ReplaceAll(text, "*/", "* /")
	lines := wrap(text, 80-len(indent)-3)
	if len(lines) == 1 && len(indent)+len(lines[0])+7 <= 80 {
		return indent + "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(indent + " * " + l + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}
