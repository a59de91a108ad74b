package apiserver

import (
	"flag"
	"os"
	"testing"

	"go.yaml.in/yaml/v2"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/kinds"
)

var updateSSASchema = flag.Bool("update-ssa-schema", false, "rewrite ssaschema.yaml from client-go's schema (go generate ./host/internal/apiserver)")

// TestSSASchemaIsCurrent checks that ssaschema.yaml is client-go's
// structured schema cut to the built-in kinds the API writes and the types
// they use: the same definitions, so that server-side apply merges them
// exactly as with the whole of client-go's schema.
func TestSSASchemaIsCurrent(t *testing.T) {
	want, err := servedSSASchema()
	if err != nil {
		t.Fatal(err)
	}
	data, err := yaml.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if *updateSSASchema {
		if err := os.WriteFile("ssaschema.yaml", data, 0o644); err != nil {
			t.Fatal(err)
		}
		return // the binary embeds the file it replaced
	}
	if ssaSchema != string(data) {
		t.Fatal("ssaschema.yaml is stale: it differs from client-go's schema of the served kinds; run `go generate ./host/internal/apiserver`")
	}
	parser, err := typed.NewParser(typed.YAMLObject(ssaSchema))
	if err != nil {
		t.Fatal(err)
	}
	again, err := yaml.Marshal(&parser.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != ssaSchema {
		t.Fatal("ssaschema.yaml does not read back as the definitions it was written from")
	}
}

// servedSSASchema is the part of client-go's structured schema that the
// field managers of newFieldManagers use: the definitions of the built-in
// kinds the API writes, and of every type those reach.
func servedSSASchema() (*schema.Schema, error) {
	full := applyconfigurations.NewTypeConverter(kinds.Scheme)
	var all *schema.Schema
	keep := map[string]bool{}
	for _, res := range resources {
		gvk := res.gv().WithKind(res.Kind)
		if res.Computed || res.Group == kube32v1.GroupName || !kinds.Scheme.Recognizes(gvk) {
			continue // no field manager, or one without a schema (fieldmanager.go)
		}
		obj, err := kinds.Scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		tv, err := full.ObjectToTyped(obj)
		if err != nil {
			return nil, err
		}
		all = tv.Schema()
		reach(all, *tv.TypeRef().NamedType, keep)
	}
	out := &schema.Schema{}
	for _, td := range all.Types {
		if keep[td.Name] {
			out.Types = append(out.Types, td)
		}
	}
	return out, nil
}

// reach marks name and every type its definition refers to.
func reach(s *schema.Schema, name string, keep map[string]bool) {
	if keep[name] {
		return
	}
	keep[name] = true
	td, ok := s.FindNamedType(name)
	if !ok {
		return // the parser reports it, as for client-go's schema
	}
	var ref func(schema.TypeRef)
	var atom func(schema.Atom)
	ref = func(r schema.TypeRef) {
		if r.NamedType != nil {
			reach(s, *r.NamedType, keep)
		}
		atom(r.Inlined)
	}
	atom = func(a schema.Atom) {
		if a.Map != nil {
			for _, f := range a.Map.Fields {
				ref(f.Type)
			}
			ref(a.Map.ElementType)
		}
		if a.List != nil {
			ref(a.List.ElementType)
		}
	}
	atom(td.Atom)
}
