package apiserver

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kube32/kube32/host/internal/kinds"
)

// Discovery in its legacy form: /api, /apis, /apis/<group> and each group
// version's resource list. /api and /apis answer in the aggregated form
// instead when the client asks for it (discovery_aggregated.go).

func (s *Server) serveAPIVersions(w http.ResponseWriter, r *http.Request) {
	if serveAggregated(w, r, "") {
		return
	}
	writeJSON(w, http.StatusOK, &metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
		Versions: []string{"v1"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
			{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host},
		},
	})
}

func (s *Server) serveAPIGroupList(w http.ResponseWriter, r *http.Request) {
	if serveAggregated(w, r, "apis") {
		return
	}
	list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, gv := range groupVersions() {
		if gv.Group == "" {
			continue
		}
		list.Groups = append(list.Groups, apiGroup(gv))
	}
	writeJSON(w, http.StatusOK, list)
}

func apiGroup(gv schema.GroupVersion) metav1.APIGroup {
	v := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
	return metav1.APIGroup{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:     gv.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v,
	}
}

func (s *Server) serveAPIGroup(w http.ResponseWriter, r *http.Request, group string) {
	for _, gv := range groupVersions() {
		if gv.Group == group && group != "" {
			g := apiGroup(gv)
			writeJSON(w, http.StatusOK, &g)
			return
		}
	}
	writeStatus(w, notFoundPath(r))
}

func (s *Server) serveResourceList(w http.ResponseWriter, r *http.Request, gv schema.GroupVersion) {
	list := apiResources(gv)
	if len(list) == 0 {
		writeStatus(w, notFoundPath(r))
		return
	}
	writeJSON(w, http.StatusOK, &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv.String(), APIResources: list,
	})
}

// apiResources is what discovery says of a group version's resources and
// their subresources ("pods/status"), legacy and aggregated alike.
func apiResources(gv schema.GroupVersion) []metav1.APIResource {
	var out []metav1.APIResource
	for _, res := range resources {
		if res.gv() != gv {
			continue
		}
		out = append(out, metav1.APIResource{
			Name: res.Name, SingularName: res.Singular, Namespaced: res.Namespaced, Kind: res.Kind,
			Verbs: res.verbs(), ShortNames: res.ShortNames, Categories: res.Categories,
		})
		if res.Status {
			out = append(out, metav1.APIResource{
				Name: res.Name + "/status", Namespaced: res.Namespaced, Kind: res.Kind, Verbs: []string{"get", "patch", "update"},
			})
		}
		if res.Kind == kinds.Pod {
			out = append(out, metav1.APIResource{
				Name: "pods/log", Namespaced: true, Kind: kinds.Pod, Verbs: []string{"get"},
			})
		}
	}
	return out
}
