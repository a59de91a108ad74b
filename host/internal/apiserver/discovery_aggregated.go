package apiserver

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Aggregated discovery (apidiscovery.k8s.io): /api and /apis each answer
// every group version with its resources in one document, so that a client
// with an empty cache learns the whole API in two requests. It is made from
// apiResources, as the legacy documents are, so the two say the same.
// v2beta1, which older clients ask for, has the same fields as v2.

// aggregatedVersions are the apidiscovery versions served, preferred first.
var aggregatedVersions = []string{"v2", "v2beta1"}

// serveAggregated answers the aggregated discovery of root ("" for /api,
// "apis" for /apis) when r accepts it, and reports whether it did.
func serveAggregated(w http.ResponseWriter, r *http.Request, root string) bool {
	version, ok := acceptsAggregated(r.Header.Get("Accept"))
	if !ok {
		return false
	}
	list := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/" + version},
		Items:    []apidiscoveryv2.APIGroupDiscovery{},
	}
	for _, gv := range groupVersions() {
		if (gv.Group == "") != (root == "") {
			continue
		}
		list.Items = append(list.Items, apidiscoveryv2.APIGroupDiscovery{
			ObjectMeta: metav1.ObjectMeta{Name: gv.Group},
			Versions: []apidiscoveryv2.APIVersionDiscovery{{
				Version: gv.Version, Resources: discoveryResources(gv), Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			}},
		})
	}
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v="+version+";as=APIGroupDiscoveryList")
	_ = json.NewEncoder(w).Encode(list)
	return true
}

// acceptsAggregated is the first apidiscovery version of an Accept header
// that asks for an APIGroupDiscoveryList as JSON.
func acceptsAggregated(accept string) (string, bool) {
	for _, part := range strings.Split(accept, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mediaType != "application/json" || params["g"] != "apidiscovery.k8s.io" || params["as"] != "APIGroupDiscoveryList" {
			continue
		}
		for _, v := range aggregatedVersions {
			if params["v"] == v {
				return v, true
			}
		}
	}
	return "", false
}

// discoveryResources is apiResources of gv with each subresource under
// its resource.
func discoveryResources(gv schema.GroupVersion) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	for _, r := range apiResources(gv) {
		kind := &metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: r.Kind}
		if parent, sub, ok := strings.Cut(r.Name, "/"); ok {
			for i := range out {
				if out[i].Resource == parent {
					out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
						Subresource: sub, ResponseKind: kind, Verbs: r.Verbs,
					})
				}
			}
			continue
		}
		scope := apidiscoveryv2.ScopeCluster
		if r.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource: r.Name, SingularResource: r.SingularName, ResponseKind: kind, Scope: scope,
			Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories,
		})
	}
	return out
}
