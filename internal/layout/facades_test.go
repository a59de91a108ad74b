package layout

import (
	"encoding/json"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The facades are sealed (docs/design.md, "The public surface"): a name of
// host or bundler that aliases an internal type must not hand out that
// type's fields, which would make every field of the runtime part of the
// promise. Such a type is the facade's own, with unexported fields and the
// methods callers need.
func TestFacadeAliasesExposeNoFields(t *testing.T) {
	for _, facade := range []string{"host", "bundler"} {
		scope := importFacade(t, facade).Scope()
		aliases := 0
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() || !tn.IsAlias() {
				continue
			}
			aliases++
			if field := exportedField(tn.Type()); field != "" {
				t.Errorf("%s.%s is an alias of %s, whose field %s is exported", facade, name, types.Unalias(tn.Type()), field)
			}
		}
		t.Logf("%s: %d aliases checked", facade, aliases)
	}
}

// exportedField names an exported field of typ (or of what it points to),
// "" when it has none.
func exportedField(typ types.Type) string {
	if p, ok := types.Unalias(typ).(*types.Pointer); ok {
		typ = p.Elem()
	}
	s, ok := typ.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	for i := range s.NumFields() {
		if f := s.Field(i); f.Exported() {
			return f.Name()
		}
	}
	return ""
}

// importFacade reads a facade's types from the compiler's export data,
// which keeps its aliases.
func importFacade(t *testing.T, path string) *types.Package {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-json", module+"/"+path).Output()
	if err != nil {
		t.Fatalf("go list -export %s: %v", path, err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	pkg, err := imp.Import(module + "/" + path)
	if err != nil {
		t.Fatalf("importing %s: %v", path, err)
	}
	return pkg
}
