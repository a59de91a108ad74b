package apiserver

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kube32/kube32/abi"
)

// kubectl 1.32 validates what it applies on the server when the server
// says it supports the fieldValidation parameter: it looks for the PATCH
// operation of the object's kind, and that parameter, in the OpenAPI v3
// document of the group version. This is that much of OpenAPI: every
// resource's PATCH with fieldValidation, and no schemas (so kubectl
// computes strategic merge patches from its own Go types).

func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

func (s *Server) serveOpenAPIRoot(w http.ResponseWriter, r *http.Request) {
	paths := map[string]any{}
	for _, gv := range groupVersions() {
		doc, _ := json.Marshal(openAPIDoc(gv))
		h := fnv.New64a()
		h.Write(doc)
		paths[gvPath(gv)] = map[string]string{"serverRelativeURL": fmt.Sprintf("/openapi/v3/%s?hash=%X", gvPath(gv), h.Sum64())}
	}
	writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
}

func (s *Server) serveOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/openapi/v3/")
	for _, gv := range groupVersions() {
		if gvPath(gv) == path {
			writeJSON(w, http.StatusOK, openAPIDoc(gv))
			return
		}
	}
	writeStatus(w, notFoundPath(r))
}

func openAPIDoc(gv schema.GroupVersion) map[string]any {
	paths := map[string]any{}
	for _, res := range resources {
		if res.gv() != gv {
			continue
		}
		base := "/" + gvPath(gv) + "/"
		if res.Namespaced {
			base += "namespaces/{namespace}/"
		}
		gvk := map[string]string{"group": res.Group, "version": res.Version, "kind": res.Kind}
		paths[base+res.Name+"/{name}"] = map[string]any{
			"patch": map[string]any{
				"operationId":                     "patch" + res.Kind,
				"x-kubernetes-action":             "patch",
				"x-kubernetes-group-version-kind": gvk,
				"parameters": []map[string]any{
					{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"}},
					{"name": "dryRun", "in": "query", "schema": map[string]string{"type": "string"}},
				},
				"responses": map[string]any{"200": map[string]string{"description": "OK"}},
			},
		}
		paths[base+res.Name] = map[string]any{
			"post": map[string]any{
				"operationId":                     "create" + res.Kind,
				"x-kubernetes-action":             "post",
				"x-kubernetes-group-version-kind": gvk,
				"parameters": []map[string]any{
					{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"}},
				},
				"responses": map[string]any{"201": map[string]string{"description": "Created"}},
			},
		}
	}
	return map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]string{"title": "Kubernetes", "version": abi.KubernetesVersion},
		"paths":   paths,
	}
}

// serveOpenAPIV2 answers an empty OpenAPI v2 document in the protobuf form
// client-go asks for. kubectl falls back to v2 for kinds the v3 documents
// do not have; finding no schema there, it skips client-side validation
// and reports an unknown kind as kubectl against kube-apiserver does ("no
// matches for kind").
func (s *Server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	doc := &openapiv2.Document{
		Swagger: "2.0",
		Info:    &openapiv2.Info{Title: "Kubernetes", Version: abi.KubernetesVersion},
		Paths:   &openapiv2.Paths{},
	}
	data, err := proto.Marshal(doc)
	if err != nil {
		writeStatus(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
	w.Write(data)
}
