package gen

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/kube32/kube32/abi"
)

// docsTemplate holds the fixed prose of docs/abi.md; the tables come from
// package abi.
//
//go:embed abi.md.tmpl
var docsTemplate string

var docsTmpl = template.Must(template.New("abi.md").Parse(docsTemplate))

// docRow is one table row of docs/abi.md.
type docRow struct {
	Name, Signature, Capability, Doc string
	Ext                              bool
	Code                             int32
}

// docsData is what abi.md.tmpl renders.
type docsData struct {
	GeneratedBy string
	Module      string
	Functions   []docRow
	CDecls      []string
	LogLevels   []struct {
		Name  string
		Value int
	}
	Exports      []docRow
	EntryExports []string
	Errors       []docRow
	WASIModule   string
	WASISubset   []string
}

// Docs renders docs/abi.md.
func Docs() ([]byte, error) {
	d := docsData{
		GeneratedBy: generatedBy, Module: abi.Module, LogLevels: logLevels,
		EntryExports: abi.EntryExports, WASIModule: abi.WASIModule, WASISubset: abi.WASISubset,
	}
	for _, f := range abi.Functions {
		var params []string
		for _, p := range f.Params {
			params = append(params, p.Name+" "+string(p.Type))
		}
		d.Functions = append(d.Functions, docRow{
			Name: f.Name, Ext: f.Ext, Capability: string(f.Capability), Doc: markdownText(f.Doc),
			Signature: "(" + strings.Join(params, ", ") + ") -> " + typeList(f.Results),
		})
		decl, err := cDecl(f)
		if err != nil {
			return nil, err
		}
		d.CDecls = append(d.CDecls, decl)
	}
	for _, e := range abi.Exports {
		d.Exports = append(d.Exports, docRow{
			Name: e.Name, Ext: e.Ext, Doc: markdownText(e.Doc),
			Signature: typeList(e.Params) + " -> " + typeList(e.Results),
		})
	}
	for _, e := range abi.Errors {
		d.Errors = append(d.Errors, docRow{Name: e.Name, Code: int32(e.Code), Ext: e.Ext, Doc: markdownText(e.Doc)})
	}
	var b bytes.Buffer
	if err := docsTmpl.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("abi.md.tmpl: %w", err)
	}
	return b.Bytes(), nil
}

// typeList renders types as a WebAssembly-style tuple; one type stands alone.
func typeList(types []abi.Type) string {
	if len(types) == 1 {
		return string(types[0])
	}
	var s []string
	for _, t := range types {
		s = append(s, string(t))
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// codeWords are the names in table docs that read better as code.
var codeWords = regexp.MustCompile(`\b(k32_[a-z0-9_]+|K32_ERR_(?:[A-Z]+|\*)|kube32\.io/[a-z-]+|` + regexp.QuoteMeta(abi.HeaderPrefix) + `[A-Za-z-]+|resp_cap|timeout_ms)`)

// markdownText makes a table doc safe inside a Markdown table cell and
// formats ABI names as code.
func markdownText(doc string) string {
	doc = strings.ReplaceAll(doc, "|", `\|`)
	return codeWords.ReplaceAllString(doc, "`$1`")
}
