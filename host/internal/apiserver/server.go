// Package apiserver serves the cluster's Kubernetes API on the API port:
// health and version, discovery, a minimal OpenAPI v3 document, and REST
// over the object store (get, list, watch, create, update, patch, delete,
// status subresources, server-side Tables, pod logs, port-forward), with
// Endpoints and EndpointSlices computed on read, the Metrics API read from
// the nodes and the self-subject reviews. Real kubectl and client-go drive it.
// The cluster mounts it on the API port (Mount) behind the port's one token
// check, host/internal/apiauth, beside the web view and the channel
// endpoint.
package apiserver

import (
	"encoding/json"
	"net/http"
	"runtime"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// Logs gives the log lines of the pods running on the control plane.
type Logs interface {
	// FollowLogs returns the pod's kept lines and a channel of the lines
	// that follow until stop is called; ok is false when the pod does not
	// run here.
	FollowLogs(namespace, name string) (lines []pod.Line, next <-chan pod.Line, stop func(), ok bool)
}

// Config wires the API server to the cluster.
type Config struct {
	// Ready reports whether the manifests are applied and every pod has
	// started or failed for good.
	Ready func() bool
	// Store is the cluster's object store; nil serves only health and
	// version.
	Store *store.Store
	// Logs serves pods/log; nil answers 404 for every pod.
	Logs Logs
	// Token, when set, is the bearer token every request but the health
	// checks must carry.
	Token string
	// Gate, when set, is the token check of the API port the server is
	// mounted on (Mount), shared with the other handlers there, and must
	// check Token; nil makes one of Token and Logf.
	Gate *apiauth.Gate
	// Local, when set, is the control plane's kubelet: port-forward
	// reaches its pods in-process, and the other pods through their
	// node's pod port (podhandler.go).
	Local service.LocalPods
	// Logf receives the "[AUTH]" lines of clients that send wrong tokens
	// when New makes the Gate, at most once per abi.LogRateInterval each;
	// nil logs nothing.
	Logf func(format string, args ...any)
}

// Server is the API server. Mount puts it on an API port; as an
// http.Handler it is a port of its own, with nothing else mounted.
type Server struct {
	cfg       Config
	mux       *http.ServeMux
	encodings *encodingCache
	gate      *apiauth.Gate
	port      *apiauth.Mux // the server alone, for ServeHTTP
}

var _ http.Handler = (*Server)(nil)

// New returns the API server.
func New(cfg Config) *Server {
	gate := cfg.Gate
	if gate == nil {
		gate = apiauth.New(apiauth.Config{Token: cfg.Token, Logf: cfg.Logf})
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), encodings: newEncodingCache(), gate: gate}
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if cfg.Ready != nil && !cfg.Ready() {
			http.Error(w, "pods are still starting", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok"))
	})
	s.mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	s.mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{
			"major": abi.KubernetesMajor, "minor": abi.KubernetesMinor, "gitVersion": abi.KubernetesVersion, "platform": "kube32/wasm32",
			"goVersion": runtime.Version(), "compiler": runtime.Compiler, "gitCommit": "", "gitTreeState": "clean", "buildDate": "",
		})
	})
	if cfg.Store != nil {
		s.mux.HandleFunc("GET /api", s.serveAPIVersions)
		s.mux.HandleFunc("GET /apis", s.serveAPIGroupList)
		s.mux.HandleFunc("GET /openapi/v2", s.serveOpenAPIV2)
		s.mux.HandleFunc("GET /openapi/v3", s.serveOpenAPIRoot)
		s.mux.HandleFunc("GET /openapi/v3/", s.serveOpenAPIGroupVersion)
		s.mux.HandleFunc("/api/", s.serveREST)
		s.mux.HandleFunc("/apis/", s.serveREST)
	}
	s.port = apiauth.NewMux(gate)
	s.Mount(s.port)
	return s
}

// Mount serves the API on port: the health checks and the version
// without the token, and everything else behind port's gate, which must be
// the server's (Config.Gate).
func (s *Server) Mount(port *apiauth.Mux) {
	for _, p := range []string{"/readyz", "/livez", "/healthz", "/version"} {
		port.HandlePublic(p, s.mux)
	}
	port.Handle("/", s.mux)
}

// ServeHTTP serves r on a port of the server alone.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.port.ServeHTTP(w, r) }

// request is a parsed REST path.
type request struct {
	gv          schema.GroupVersion
	res         *resource
	namespace   string
	name        string
	subresource string
}

// serveREST routes /api/v1/... and /apis/<group>/<version>/...
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var gv schema.GroupVersion
	switch {
	case parts[0] == "api" && len(parts) >= 2:
		gv, parts = schema.GroupVersion{Version: parts[1]}, parts[2:]
	case parts[0] == "apis" && len(parts) == 2:
		if r.Method != http.MethodGet {
			writeStatus(w, notFoundPath(r))
			return
		}
		s.serveAPIGroup(w, r, parts[1])
		return
	case parts[0] == "apis" && len(parts) >= 3:
		gv, parts = schema.GroupVersion{Group: parts[1], Version: parts[2]}, parts[3:]
	default:
		writeStatus(w, notFoundPath(r))
		return
	}
	if len(parts) == 0 {
		if r.Method != http.MethodGet {
			writeStatus(w, notFoundPath(r))
			return
		}
		s.serveResourceList(w, r, gv)
		return
	}
	req := request{gv: gv}
	if parts[0] == "namespaces" && len(parts) >= 3 {
		if res := lookup(gv, parts[2]); res != nil && res.Namespaced {
			req.namespace, parts = parts[1], parts[2:]
		}
	}
	req.res = lookup(gv, parts[0])
	if req.res == nil || len(parts) > 3 {
		writeStatus(w, notFoundPath(r))
		return
	}
	if len(parts) >= 2 {
		req.name = parts[1]
	}
	if len(parts) == 3 {
		req.subresource = parts[2]
		ok := (parts[2] == "status" && req.res.Status) || ((parts[2] == "log" || isPodStream(parts[2])) && req.res.Kind == "Pod")
		if !ok {
			writeStatus(w, notFoundPath(r))
			return
		}
	}
	if req.res.Namespaced && req.name != "" && req.namespace == "" {
		writeStatus(w, notFoundPath(r))
		return
	}
	if isPodStream(req.subresource) {
		s.servePodStream(w, r, req) // portforward, exec, attach: podstream.go
		return
	}
	s.serveResource(w, r, req)
}
