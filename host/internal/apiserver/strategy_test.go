package apiserver_test

import (
	"encoding/json"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// servedResources is every resource (no subresource) the server's legacy
// discovery lists, by group version, and the subresources it lists.
func servedResources(t *testing.T, url string) (map[schema.GroupVersion][]metav1.APIResource, sets.Set[string]) {
	t.Helper()
	get := func(path string, into any) {
		r := testhttp.Get(t, url+path)
		if r.Status != 200 {
			t.Fatalf("GET %s: %s", path, r)
		}
		if err := json.Unmarshal([]byte(r.Body), into); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var core metav1.APIVersions
	get("/api", &core)
	gvs := []schema.GroupVersion{}
	for _, v := range core.Versions {
		gvs = append(gvs, schema.GroupVersion{Version: v})
	}
	var groups metav1.APIGroupList
	get("/apis", &groups)
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gvs = append(gvs, schema.GroupVersion{Group: g.Name, Version: v.Version})
		}
	}
	out := map[schema.GroupVersion][]metav1.APIResource{}
	subresources := sets.New[string]()
	for _, gv := range gvs {
		path := "/apis/" + gv.String()
		if gv.Group == "" {
			path = "/api/" + gv.Version
		}
		var list metav1.APIResourceList
		get(path, &list)
		for _, res := range list.APIResources {
			if strings.Contains(res.Name, "/") {
				subresources.Insert(gv.String() + " " + res.Name)
				continue
			}
			out[gv] = append(out[gv], res)
		}
	}
	return out, subresources
}

// Issue 20, item 3 ("one strategy per kind"): every kind discovery lists
// has a whole strategy, so that a kind cannot be half-registered: its Go
// type in the Scheme (for the kinds the store keeps), validation that runs
// for the kinds the API writes (and none for the others, whose writes are
// refused), Table columns with one cell each, a value for every field
// label, and a status copy for a status subresource.
func TestEveryServedKindHasACompleteStrategy(t *testing.T) {
	srv := httptest.NewServer(apiserver.New(apiserver.Config{Store: store.New()}))
	t.Cleanup(srv.Close)
	served, subresources := servedResources(t, srv.URL)

	byResource := map[string]*admission.Strategy{}
	seenKinds := map[string]bool{}
	for _, s := range admission.Strategies {
		gv := schema.GroupVersion{Group: s.Group, Version: s.Version}
		byResource[gv.String()+" "+s.Name] = s
		if seenKinds[s.Kind] {
			t.Errorf("kind %s has two strategies", s.Kind)
		}
		seenKinds[s.Kind] = true
	}

	count := 0
	for gv, list := range served {
		for _, res := range list {
			count++
			name := gv.String() + " " + res.Name
			s := byResource[name]
			if s == nil {
				t.Errorf("%s: served without a strategy", name)
				continue
			}
			if s.Kind != res.Kind || s.Namespaced != res.Namespaced {
				t.Errorf("%s: discovery says kind %s namespaced %v, its strategy %s %v", name, res.Kind, res.Namespaced, s.Kind, s.Namespaced)
			}
			checkStrategy(t, name, gv, s, subresources.Has(name+"/status"))
		}
	}
	if count != len(admission.Strategies) {
		t.Errorf("discovery lists %d resources, there are %d strategies", count, len(admission.Strategies))
	}
}

func checkStrategy(t *testing.T, name string, gv schema.GroupVersion, s *admission.Strategy, hasStatus bool) {
	t.Helper()
	if s.New == nil {
		t.Errorf("%s: no New", name)
		return
	}
	obj := s.New()
	if admission.StrategyOf(obj) != s {
		t.Errorf("%s: its Go type %T does not lead back to its strategy", name, obj)
	}
	stored := !s.Computed && !s.Review
	if stored {
		gvks, _, err := kinds.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 || gvks[0] != gv.WithKind(s.Kind) {
			t.Errorf("%s: the Scheme has %T as %v (%v), want %v", name, obj, gvks, err, gv.WithKind(s.Kind))
		}
	}

	// Validation: an object without a name is refused, by validation for
	// a kind the API stores, as a kind that cannot be written otherwise.
	errs := admission.Admit(s.New())
	switch {
	case stored && s.Validate == nil:
		t.Errorf("%s: stored but not validated", name)
	case stored && !hasField(errs, "metadata.name", field.ErrorTypeRequired):
		t.Errorf("%s: a nameless object is admitted: %v", name, errs)
	case !stored && (s.Validate != nil || !hasField(errs, "kind", field.ErrorTypeForbidden)):
		t.Errorf("%s: never stored, yet Admit says %v", name, errs)
	}

	// Printer columns: one cell each.
	if len(s.Printer.Columns) == 0 || s.Printer.Cells == nil {
		t.Errorf("%s: no Table printer", name)
	} else if cells := s.Printer.Cells(obj); len(cells) != len(s.Printer.Columns) {
		t.Errorf("%s: %d columns, %d cells", name, len(s.Printer.Columns), len(cells))
	}

	// Field labels: every label has a value and every value a label.
	set := s.FieldSet(obj)
	var values []string
	for k := range set {
		values = append(values, k)
		if !s.Selectable(k) {
			t.Errorf("%s: a value for %s, which a selector may not name", name, k)
		}
	}
	for _, l := range append([]string{"metadata.name", "metadata.namespace"}, s.FieldLabels...) {
		if _, ok := set[l]; !ok {
			sort.Strings(values)
			t.Errorf("%s: field label %s has no value (values: %v)", name, l, values)
		}
	}

	if hasStatus && s.CopyStatus == nil {
		t.Errorf("%s: a status subresource but no CopyStatus", name)
	}
	if s.Status != hasStatus {
		t.Errorf("%s: Status %v, discovery's status subresource %v", name, s.Status, hasStatus)
	}
}

func hasField(errs field.ErrorList, path string, typ field.ErrorType) bool {
	for _, e := range errs {
		if e.Field == path && e.Type == typ {
			return true
		}
	}
	return false
}
