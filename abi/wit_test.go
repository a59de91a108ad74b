package abi_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.bytecodealliance.org/wit"

	"github.com/kube32/kube32/abi"
)

// witPath is the WIT package that must describe exactly the Go tables.
const witPath = "k32.wit"

// witDoc is the doc of a WIT item split by the conventions of k32.wit: the
// first paragraph is the text, the later lines are "key: value" tags.
type witDoc struct {
	Text string
	Tags map[string]string
}

// parseWITDoc splits docs; an unknown or repeated tag is an error so that a
// typo ("capabilty:") cannot silently drop a capability.
func parseWITDoc(docs string) (witDoc, error) {
	text, rest, _ := strings.Cut(docs, "\n\n")
	d := witDoc{Text: strings.Join(strings.Fields(text), " "), Tags: map[string]string{}}
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return d, fmt.Errorf("doc line %q: want \"key: value\" after the first paragraph", line)
		}
		switch key {
		case "capability", "ext", "code", "core-name", "entry-exports":
		default:
			return d, fmt.Errorf("doc line %q: unknown tag %q", line, key)
		}
		if _, dup := d.Tags[key]; dup {
			return d, fmt.Errorf("doc line %q: tag %q repeated", line, key)
		}
		d.Tags[key] = strings.TrimSpace(value)
	}
	return d, nil
}

// coreName is the core WebAssembly name of a WIT item: its "core-name" tag,
// else its kebab-case name with '-' turned into '_'.
func coreName(witName string, d witDoc) string {
	if n, ok := d.Tags["core-name"]; ok {
		return n
	}
	return strings.ReplaceAll(witName, "-", "_")
}

// checkCoreName checks that abi.CoreName and abi.WITName, which the build
// uses to lower WIT names (docs/components.md), agree with the WIT's rule.
func checkCoreName(t *testing.T, witName string, d witDoc) {
	t.Helper()
	if got, want := abi.CoreName(witName), coreName(witName, d); got != want {
		t.Errorf("%s: %s: abi.CoreName gives %q, the WIT %q", witPath, witName, got, want)
	}
	if got := abi.WITName(coreName(witName, d)); got != witName {
		t.Errorf("%s: %s: abi.WITName(%q) gives %q", witPath, witName, coreName(witName, d), got)
	}
}

// abiType maps a WIT parameter or result type to the ABI type it stands for.
// Only the alias "ptr" of k32.wit is a pointer; every other u32 is a length.
func abiType(t wit.Type) (abi.Type, error) {
	if td, ok := t.(*wit.TypeDef); ok {
		if td.TypeName() == "ptr" {
			if _, isU32 := td.Kind.(wit.U32); !isU32 {
				return "", fmt.Errorf("type ptr is %T, want an alias of u32", td.Kind)
			}
			return abi.Ptr, nil
		}
		return "", fmt.Errorf("type %q has no ABI type", td.TypeName())
	}
	switch t.(type) {
	case wit.U32:
		return abi.U32, nil
	case wit.S32:
		return abi.I32, nil
	case wit.S64:
		return abi.I64, nil
	}
	return "", fmt.Errorf("type %T has no ABI type", t)
}

// witParams are the names (snake_case) and ABI types of a WIT function.
func witParams(f *wit.Function) ([]abi.Param, []abi.Type, error) {
	var params []abi.Param
	for _, p := range f.Params {
		t, err := abiType(p.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("param %s: %w", p.Name, err)
		}
		params = append(params, abi.Param{Name: strings.ReplaceAll(p.Name, "-", "_"), Type: t})
	}
	var results []abi.Type
	for _, r := range f.Results {
		t, err := abiType(r.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("result: %w", err)
		}
		results = append(results, t)
	}
	return params, results, nil
}

// loadK32WIT loads k32.wit; it runs wasm-tools under wazero (about a second),
// so one test loads it and checks everything in subtests.
func loadK32WIT(t *testing.T) (*wit.Interface, *wit.World) {
	t.Helper()
	res, err := wit.LoadWIT(witPath)
	if err != nil {
		t.Fatalf("loading %s: %v", witPath, err)
	}
	var iface *wit.Interface
	for _, i := range res.Interfaces {
		if i.Name != nil && *i.Name == "k32" {
			iface = i
		}
	}
	var world *wit.World
	for _, w := range res.Worlds {
		if w.Name == "pod" {
			world = w
		}
	}
	if iface == nil || world == nil {
		t.Fatalf("%s: want interface k32 and world pod", witPath)
	}
	if got, want := iface.Package.Name.String(), "kube32:app@"+abi.Version; got != want {
		t.Errorf("%s: package %s, want %s (abi.Version)", witPath, got, want)
	}
	return iface, world
}

func TestWITMatchesGoTables(t *testing.T) {
	iface, world := loadK32WIT(t)
	t.Run("functions", func(t *testing.T) { checkWITFunctions(t, iface) })
	t.Run("errors", func(t *testing.T) { checkWITErrors(t, iface) })
	t.Run("exports", func(t *testing.T) { checkWITExports(t, world, iface) })
}

func checkWITFunctions(t *testing.T, iface *wit.Interface) {
	var got []abi.Function
	for name, f := range iface.Functions.All() {
		d, err := parseWITDoc(f.Docs.Contents)
		if err != nil {
			t.Errorf("%s: %s: %v", witPath, name, err)
			continue
		}
		params, results, err := witParams(f)
		if err != nil {
			t.Errorf("%s: %s: %v", witPath, name, err)
			continue
		}
		checkCoreName(t, name, d)
		_, ext := d.Tags["ext"]
		got = append(got, abi.Function{
			Name: coreName(name, d), Params: params, Results: results,
			Capability: abi.Capability(d.Tags["capability"]), Ext: ext, Doc: d.Text,
		})
	}
	compareByName(t, "host function", got, abi.Functions,
		func(f abi.Function) string { return f.Name },
		func(f abi.Function) string { return fmt.Sprintf("%+v", f) })
}

func checkWITErrors(t *testing.T, iface *wit.Interface) {
	td := iface.TypeDefs.Get("errno")
	if td == nil {
		t.Fatalf("%s: interface k32 has no enum errno", witPath)
	}
	enum, ok := td.Kind.(*wit.Enum)
	if !ok {
		t.Fatalf("%s: interface k32 has no enum errno", witPath)
	}
	var got []abi.Error
	for _, c := range enum.Cases {
		d, err := parseWITDoc(c.Docs.Contents)
		if err != nil {
			t.Errorf("%s: errno.%s: %v", witPath, c.Name, err)
			continue
		}
		code, err := strconv.ParseInt(d.Tags["code"], 10, 32)
		if err != nil {
			t.Errorf("%s: errno.%s: code: %v", witPath, c.Name, err)
		}
		_, ext := d.Tags["ext"]
		got = append(got, abi.Error{
			Name: "K32_ERR_" + strings.ToUpper(c.Name), Code: abi.Errno(code), Ext: ext, Doc: d.Text,
		})
	}
	compareByName(t, "error code", got, abi.Errors,
		func(e abi.Error) string { return e.Name },
		func(e abi.Error) string { return fmt.Sprintf("%+v", e) })
}

func checkWITExports(t *testing.T, world *wit.World, iface *wit.Interface) {
	imports := 0
	for name, item := range world.Imports.All() {
		ref, ok := item.(*wit.InterfaceRef)
		if !ok || ref.Interface != iface {
			t.Errorf("%s: world pod imports %s (%T); want only interface k32", witPath, name, item)
		}
		imports++
	}
	if imports != 1 {
		t.Errorf("%s: world pod has %d imports, want 1 (interface k32)", witPath, imports)
	}

	var got []abi.Export
	for name, item := range world.Exports.All() {
		f, ok := item.(*wit.Function)
		if !ok {
			t.Errorf("%s: world pod exports %s (%T); want functions only", witPath, name, item)
			continue
		}
		d, err := parseWITDoc(f.Docs.Contents)
		if err != nil {
			t.Errorf("%s: export %s: %v", witPath, name, err)
			continue
		}
		params, results, err := witParams(f)
		if err != nil {
			t.Errorf("%s: export %s: %v", witPath, name, err)
			continue
		}
		var types []abi.Type
		for _, p := range params {
			types = append(types, p.Type)
		}
		checkCoreName(t, name, d)
		_, ext := d.Tags["ext"]
		got = append(got, abi.Export{Name: coreName(name, d), Params: types, Results: results, Ext: ext, Doc: d.Text})
	}
	compareByName(t, "export", got, abi.Exports,
		func(e abi.Export) string { return e.Name },
		func(e abi.Export) string { return fmt.Sprintf("%+v", e) })

	d, err := parseWITDoc(world.Docs.Contents)
	if err != nil {
		t.Fatalf("%s: world pod: %v", witPath, err)
	}
	var entries []string
	for _, n := range strings.Split(d.Tags["entry-exports"], ",") {
		entries = append(entries, strings.TrimSpace(n))
	}
	if !slices.Equal(entries, abi.EntryExports) {
		t.Errorf("%s: world pod entry-exports %q, abi.EntryExports %q", witPath, entries, abi.EntryExports)
	}
}

// compareByName reports every item missing on either side and every item
// whose fields differ, then checks that the order matches too (the docs and
// the C header list items in table order).
func compareByName[T any](t *testing.T, kind string, fromWIT, table []T, name func(T) string, show func(T) string) {
	t.Helper()
	inWIT := map[string]T{}
	for _, x := range fromWIT {
		inWIT[name(x)] = x
	}
	inTable := map[string]T{}
	for _, x := range table {
		inTable[name(x)] = x
		w, ok := inWIT[name(x)]
		if !ok {
			t.Errorf("%s %s: in the Go table, missing in %s", kind, name(x), witPath)
			continue
		}
		if show(w) != show(x) {
			t.Errorf("%s %s differs:\n  %s: %s\n  Go table: %s", kind, name(x), witPath, show(w), show(x))
		}
	}
	for _, x := range fromWIT {
		if _, ok := inTable[name(x)]; !ok {
			t.Errorf("%s %s: in %s, missing in the Go table", kind, name(x), witPath)
		}
	}
	if t.Failed() {
		return
	}
	for i := range table {
		if name(fromWIT[i]) != name(table[i]) {
			t.Errorf("%s #%d: %s in %s, %s in the Go table; keep the same order", kind, i, name(fromWIT[i]), witPath, name(table[i]))
		}
	}
}
