package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kube32/kube32/host/internal/admission"
)

// resource is one REST resource the server serves: its kind's strategy
// (host/internal/admission/strategy.go), which names it, defaults, validates and
// prints it.
type resource struct {
	*admission.Strategy
}

func (r *resource) gv() schema.GroupVersion {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}
}

func (r *resource) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Name}
}

func (r *resource) groupKind() schema.GroupKind {
	return schema.GroupKind{Group: r.Group, Kind: r.Kind}
}

func (r *resource) apiVersion() string { return r.gv().String() }

func (r *resource) verbs() []string {
	if r.Review {
		return []string{"create"}
	}
	if r.Computed {
		return []string{"get", "list"}
	}
	return []string{"create", "delete", "get", "list", "patch", "update", "watch"}
}

// resources is every resource served, in discovery order: one per
// strategy.
var resources = func() []*resource {
	out := make([]*resource, len(admission.Strategies))
	for i, s := range admission.Strategies {
		out[i] = &resource{s}
	}
	return out
}()

// groupVersions lists the served group versions, core first.
func groupVersions() []schema.GroupVersion {
	var out []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	for _, r := range resources {
		if !seen[r.gv()] {
			seen[r.gv()] = true
			out = append(out, r.gv())
		}
	}
	return out
}

// lookup finds the resource of a group version by its plural name.
func lookup(gv schema.GroupVersion, name string) *resource {
	for _, r := range resources {
		if r.gv() == gv && r.Name == name {
			return r
		}
	}
	return nil
}

// byKind finds the resource of a kind.
func byKind(kind string) *resource {
	for _, r := range resources {
		if r.Kind == kind {
			return r
		}
	}
	return nil
}
