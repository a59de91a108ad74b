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

// The facades are sealed (docs/design.md, "The public surface"): no name
// of host or bundler is an alias of a type of an internal package, and
// nothing they export (a function's or a method's parameters and results,
// a field of an exported struct, an interface's methods, a variable or a
// constant) names such a type, which would make the runtime's insides
// part of the promise, and which no other module could even name. Their
// types are their own, with unexported fields and the methods callers
// need.
func TestFacadesExposeNoInternalType(t *testing.T) {
	for _, facade := range []string{"host", "bundler"} {
		scope := importFacade(t, facade).Scope()
		w := internalTypes{facade: module + "/" + facade, seen: map[types.Type]bool{}}
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			if tn, ok := obj.(*types.TypeName); ok && tn.IsAlias() && isInternal(types.Unalias(tn.Type())) {
				t.Errorf("%s.%s is an alias of %s", facade, name, types.Unalias(tn.Type()))
				continue
			}
			w.walk(facade+"."+name, obj.Type())
		}
		for _, leak := range w.found {
			t.Errorf("%s", leak)
		}
	}
}

// internalTypes finds the types of internal packages that the exported
// names of a facade reach: through their signatures, their exported fields
// and the exported methods of the facade's own types; each is named once,
// where it is first reached.
type internalTypes struct {
	facade string
	seen   map[types.Type]bool
	found  []string
}

func (w *internalTypes) walk(where string, typ types.Type) {
	if w.seen[typ] {
		return
	}
	w.seen[typ] = true
	switch x := typ.(type) {
	case *types.Alias:
		w.walk(where, types.Unalias(x))
	case *types.Named:
		if isInternal(x) {
			w.found = append(w.found, where+" names "+x.String())
			return
		}
		if p := x.Obj().Pkg(); p == nil || p.Path() != w.facade {
			return // another package's type is that package's promise
		}
		for i := range x.NumMethods() {
			if m := x.Method(i); m.Exported() {
				w.walk(where+"."+m.Name(), m.Type())
			}
		}
		w.walk(where, x.Underlying())
	case *types.Pointer:
		w.walk(where, x.Elem())
	case *types.Slice:
		w.walk(where, x.Elem())
	case *types.Array:
		w.walk(where, x.Elem())
	case *types.Chan:
		w.walk(where, x.Elem())
	case *types.Map:
		w.walk(where, x.Key())
		w.walk(where, x.Elem())
	case *types.Signature:
		for _, vars := range []*types.Tuple{x.Params(), x.Results()} {
			for i := range vars.Len() {
				w.walk(where, vars.At(i).Type())
			}
		}
	case *types.Struct:
		for i := range x.NumFields() {
			if f := x.Field(i); f.Exported() {
				w.walk(where+"."+f.Name(), f.Type())
			}
		}
	case *types.Interface:
		for i := range x.NumMethods() {
			w.walk(where+"."+x.Method(i).Name(), x.Method(i).Type())
		}
	}
}

// isInternal reports whether typ is a named type of an internal package
// of this module.
func isInternal(typ types.Type) bool {
	n, ok := typ.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	path := n.Obj().Pkg().Path()
	return strings.HasPrefix(path, module+"/") && (strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal"))
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
