package gen

import (
	"fmt"
	"strings"

	"github.com/kube32/kube32/abi"
)

// What the SDKs' generated files (C, Rust, AssemblyScript) say alike, each in
// its own language.

// functionDoc is the doc comment text of host function f: its doc and, when
// it needs one, the capability.
func functionDoc(f abi.Function) string {
	text := f.Name + extMark(f.Ext) + ": " + f.Doc
	if f.Capability != abi.NoCapability {
		text += " Needs capability " + string(f.Capability) + "; without it the call returns K32_ERR_PERM."
	}
	return text
}

// functionStyle is how an SDK's generated file declares a host function.
type functionStyle struct {
	decl   func(abi.Function) (string, error) // the declaration, without ";"
	doc    func(indent, text string) string   // a doc comment
	indent string                             // of the doc comment and the declaration
	// attr, when set, is the line(s) before the declaration, a format
	// given the import's module and name.
	attr string
	// blankFirst puts a blank line before the first function too, not
	// only between functions.
	blankFirst bool
}

// writeFunctions writes every host function in style s: its doc comment,
// its attribute and its declaration.
func writeFunctions(b *strings.Builder, s functionStyle) error {
	for i, f := range abi.Functions {
		decl, err := s.decl(f)
		if err != nil {
			return err
		}
		if i > 0 || s.blankFirst {
			b.WriteString("\n")
		}
		b.WriteString(s.doc(s.indent, functionDoc(f)))
		if s.attr != "" {
			fmt.Fprintf(b, s.attr, abi.Module, f.Name)
		}
		b.WriteString(s.indent + decl + ";\n")
	}
	return nil
}

// resultType is the type, among types, of the one result of host function
// f, "" when it has none; lang names the SDK's language in errors.
func resultType(f abi.Function, types map[abi.Type]string, lang string) (string, error) {
	switch len(f.Results) {
	case 0:
		return "", nil
	case 1:
		t, ok := types[f.Results[0]]
		if !ok {
			return "", fmt.Errorf("%s: result type %q has no %s type", f.Name, f.Results[0], lang)
		}
		return t, nil
	}
	return "", fmt.Errorf("%s: %d results; %s functions return at most one", f.Name, len(f.Results), lang)
}

// writeConstants writes the error codes, then the log levels, as constants
// with a doc comment each: doc renders a doc comment, format declares a
// constant from its name and value ("pub const %s: i32 = %d;\n").
func writeConstants(b *strings.Builder, doc func(indent, text string) string, format string) {
	for _, e := range abi.Errors {
		b.WriteString(doc("", e.Name+extMark(e.Ext)+": "+e.Doc))
		fmt.Fprintf(b, format, e.Name, int32(e.Code))
	}
	b.WriteString("\n")
	for _, l := range logLevels {
		b.WriteString(doc("", "Level of k32_log."))
		fmt.Fprintf(b, format, l.Name, l.Value)
	}
}
