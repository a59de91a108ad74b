package abi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
)

// TestProtocolNamesAreSpelledOnce is the rule that keeps one home for every
// protocol name: among the non-test Go files of host/, cli/, bundler/,
// abi/ and the module's internal/ (the toolchain driver and the test
// helpers), only abi/protocol.go spells one, in code or in a comment. Everything
// else refers to the constant.
func TestProtocolNamesAreSpelledOnce(t *testing.T) {
	sources := map[string]string{} // path from the repository root → text
	for _, dir := range []string{"host", "cli", "bundler", "abi", "internal"} {
		err := filepath.WalkDir(filepath.Join("..", dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return fs.SkipDir // test fixtures
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel("..", path)
			sources[filepath.ToSlash(rel)] = string(b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(sources) < 100 {
		t.Fatalf("found only %d source files: not run from abi/?", len(sources))
	}
	for _, n := range abi.ProtocolNames {
		if n.Shared {
			continue
		}
		var in []string
		for path, text := range sources {
			if strings.Contains(text, n.Value) {
				in = append(in, path)
			}
		}
		slices.Sort(in)
		if !slices.Equal(in, []string{"abi/protocol.go"}) {
			t.Errorf("%q (abi.%s) is spelled in %v; want only abi/protocol.go, and abi.%s elsewhere", n.Value, n.GoName, in, n.GoName)
		}
	}
	// Both halves of each protocol between a node and the control plane
	// (the egress gateway, the relay) live in host/internal/outbound, the
	// node's edge, and name the protocol by abi's constants: the walk above
	// covers them, and each half refers to the constants it speaks.
	for file, names := range map[string][]string{
		"host/internal/outbound/egress_client.go": {"abi.EgressPath", "abi.EgressContentType", "abi.HeaderEgressResult"},
		"host/internal/outbound/egress_server.go": {"abi.EgressPath", "abi.EgressContentType", "abi.HeaderEgressResult"},
		"host/internal/outbound/relay_client.go":  {"abi.UplinkPath"},
		"host/internal/outbound/relay_server.go":  {"abi.UplinkPath"},
		"host/internal/outbound/status.go":        {"abi.HeaderEgressResult"},
	} {
		text, ok := sources[file]
		if !ok {
			t.Errorf("%s is not among the sources walked: the protocol's halves moved?", file)
			continue
		}
		for _, name := range names {
			if !strings.Contains(text, name) {
				t.Errorf("%s does not refer to %s", file, name)
			}
		}
	}
}

// TestTablesListEveryConstant fails when a constant of limits.go or
// protocol.go is missing from abi.Limits or abi.ProtocolNames (and so from
// docs/limits.md), or when a table row names no such constant.
func TestTablesListEveryConstant(t *testing.T) {
	for _, c := range []struct {
		file   string
		listed []string
	}{
		{"limits.go", goNames(abi.Limits, func(l abi.Limit) string { return l.GoName })},
		{"protocol.go", goNames(abi.ProtocolNames, func(n abi.ProtocolName) string { return n.GoName })},
	} {
		declared := exportedValues(t, c.file)
		for _, name := range declared {
			if !slices.Contains(c.listed, name) {
				t.Errorf("%s declares %s, which its table does not list", c.file, name)
			}
		}
		for _, name := range c.listed {
			if !slices.Contains(declared, name) {
				t.Errorf("the table of %s lists %s, which %s does not declare", c.file, name, c.file)
			}
		}
	}
}

// TestTablesAreConsistent checks each row's unit and docs page.
func TestTablesAreConsistent(t *testing.T) {
	for _, l := range abi.Limits {
		if !slices.Contains([]string{"ms", "s", "KiB", ""}, l.Unit) || l.Value <= 0 {
			t.Errorf("%s: value %d, unit %q", l.GoName, l.Value, l.Unit)
		}
		checkRow(t, l.GoName, l.Doc, l.See)
	}
	for _, n := range abi.ProtocolNames {
		checkRow(t, n.GoName, n.Doc, n.See)
	}
}

func checkRow(t *testing.T, name, doc, see string) {
	t.Helper()
	if doc == "" || strings.Contains(doc, "\n") {
		t.Errorf("%s: want a one-line doc, have %q", name, doc)
	}
	if _, err := os.Stat(filepath.Join("..", "docs", see)); see == "" || err != nil {
		t.Errorf("%s: docs page %q: %v", name, see, err)
	}
}

func goNames[T any](rows []T, name func(T) string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, name(r))
	}
	return out
}

// exportedValues are the exported constants and variables that file
// declares, tables and types aside.
func exportedValues(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
			continue
		}
		for _, spec := range g.Specs {
			for _, id := range spec.(*ast.ValueSpec).Names {
				if id.IsExported() && id.Name != "Limits" && id.Name != "ProtocolNames" {
					out = append(out, id.Name)
				}
			}
		}
	}
	return out
}
