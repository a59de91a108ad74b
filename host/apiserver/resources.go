package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// resource is one REST resource the server serves.
type resource struct {
	Group, Version string
	Name           string // plural, e.g. "pods"
	Singular       string
	Kind           string
	Namespaced     bool
	ShortNames     []string
	// Computed resources (Endpoints, EndpointSlices) are made on read from
	// Services and Pods: read-only, no watch.
	Computed bool
	// Status is whether it has a status subresource.
	Status bool
	// Review resources (the SelfSubject…Reviews, reviews.go) answer a
	// create at once and keep nothing: create only.
	Review     bool
	Categories []string
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

// resources is every resource served, in discovery order.
var resources = []*resource{
	{Version: "v1", Name: "namespaces", Singular: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}, Status: true},
	{Version: "v1", Name: "nodes", Singular: "node", Kind: "Node", ShortNames: []string{"no"}, Status: true},
	{Version: "v1", Name: "pods", Singular: "pod", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}, Status: true, Categories: []string{"all"}},
	{Version: "v1", Name: "services", Singular: "service", Kind: "Service", Namespaced: true, ShortNames: []string{"svc"}, Status: true, Categories: []string{"all"}},
	{Version: "v1", Name: "endpoints", Singular: "endpoints", Kind: "Endpoints", Namespaced: true, ShortNames: []string{"ep"}, Computed: true},
	{Version: "v1", Name: "events", Singular: "event", Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}},
	{Group: "discovery.k8s.io", Version: "v1", Name: "endpointslices", Singular: "endpointslice", Kind: "EndpointSlice", Namespaced: true, Computed: true},
	{Group: "networking.k8s.io", Version: "v1", Name: "ingresses", Singular: "ingress", Kind: "Ingress", Namespaced: true, ShortNames: []string{"ing"}, Status: true},
	{Group: "networking.k8s.io", Version: "v1", Name: "networkpolicies", Singular: "networkpolicy", Kind: "NetworkPolicy", Namespaced: true, ShortNames: []string{"netpol"}},
	{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Singular: "lease", Kind: "Lease", Namespaced: true},
	{Group: "kube32.io", Version: "v1", Name: "staticbundles", Singular: "staticbundle", Kind: "StaticBundle", Namespaced: true},
	// Read from the nodes on each request (metrics.go).
	{Group: "metrics.k8s.io", Version: "v1beta1", Name: "nodes", Singular: "", Kind: "NodeMetrics", Computed: true},
	{Group: "metrics.k8s.io", Version: "v1beta1", Name: "pods", Singular: "", Kind: "PodMetrics", Namespaced: true, Computed: true},
	{Group: "authentication.k8s.io", Version: "v1", Name: "selfsubjectreviews", Singular: "selfsubjectreview", Kind: "SelfSubjectReview", Review: true},
	{Group: "authorization.k8s.io", Version: "v1", Name: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview", Review: true},
	{Group: "authorization.k8s.io", Version: "v1", Name: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview", Kind: "SelfSubjectRulesReview", Review: true},
}

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
