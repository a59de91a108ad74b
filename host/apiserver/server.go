// Package apiserver serves the cluster's Kubernetes API on the API port:
// health and version, discovery, a minimal OpenAPI v3 document, and REST
// over the object store (get, list, watch, create, update, patch, delete,
// status subresources, server-side Tables, pod logs, port-forward), with
// Endpoints and EndpointSlices computed on read, the Metrics API read from
// the nodes and the self-subject reviews. Real kubectl and client-go drive it.
package apiserver

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/pod"
	"github.com/kube32/kube32/host/store"
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
	// Channels, when set, serves host/abi.ChannelsPath (the cluster's channel
	// messages, see host/internal/channel.Handler).
	Channels http.Handler
	// Egress, when set with Store, serves the egress gateway
	// (abi.EgressPath, outbound.Gateway); without it that path answers 404.
	Egress *outbound.Gateway
	// Uplink, when set with Store, serves the control plane's uplink
	// (abi.UplinkPath, GET and PUT) and relays the workers' connections to
	// hosts outside through it (CONNECT, outbound.Uplink's handlers);
	// without it CONNECT answers 405 and the path 404.
	Uplink *outbound.Uplink
	// Local, when set, is the control plane's kubelet: port-forward
	// reaches its pods in-process, and the other pods through their
	// node's pod port (podhandler.go).
	Local service.LocalPods
	// Activity, when set, is streamed to the web view at abi.UIPath
	// (ui.go); the page itself is served either way.
	Activity *activity.Stream
	// TLSAddr is the HTTPS API endpoint (host:port). With a Token the web
	// view lives there only, where its session cookie can be Secure: over
	// plain HTTP abi.UIPath redirects to it (docs/ui.md).
	TLSAddr string
	// Logf receives the "[AUTH]" lines of clients that send wrong tokens,
	// at most once per abi.LogRateInterval each; nil logs nothing.
	Logf func(format string, args ...any)
}

// Server is the API server; it is an http.Handler.
type Server struct {
	cfg       Config
	mux       *http.ServeMux
	connect   http.Handler // CONNECT: the relay (outbound.go)
	encodings *encodingCache
	guesses   guesses
}

var _ http.Handler = (*Server)(nil)

// New returns the API server's handler.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, mux: http.NewServeMux(), encodings: newEncodingCache(), guesses: guesses{logf: cfg.Logf}}
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
	s.registerChannels()
	s.registerUI()
	if cfg.Egress != nil && cfg.Store != nil {
		s.mux.Handle("POST "+abi.EgressPath, cfg.Egress.Handler(s.nodes()))
	}
	if cfg.Uplink != nil && cfg.Store != nil {
		s.mux.Handle("GET "+abi.UplinkPath, cfg.Uplink.StateHandler())
		s.mux.Handle("PUT "+abi.UplinkPath, cfg.Uplink.StateHandler())
	}
	s.connect = s.relay()
	return s
}

// ServeHTTP checks the bearer token, then serves the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.connect.ServeHTTP(w, r) // it checks the token itself, or the node's address
		return
	}
	if s.uiOverPlainHTTP(r) {
		http.Redirect(w, r, "https://"+s.cfg.TLSAddr+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		return
	}
	switch r.URL.Path {
	case "/readyz", "/livez", "/healthz", "/version":
	case abi.EgressPath:
		if s.cfg.Egress != nil {
			break // the gateway checks the token itself, to answer and log refusals
		}
		fallthrough
	default:
		if s.cfg.Token != "" && !uiPublic(r) {
			if ok, wait := s.authorize(r); !ok {
				if wait > 0 {
					writeTooManyGuesses(w, wait)
				} else {
					writeStatus(w, apierrors.NewUnauthorized("Unauthorized"))
				}
				return
			}
		}
	}
	s.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries the cluster token (authorize).
func (s *Server) authorized(r *http.Request) bool {
	ok, _ := s.authorize(r)
	return ok
}

// authorize reports whether r carries the cluster token: as a bearer
// token, or, over HTTPS and for reads only, in the web view's
// abi.SessionCookie (a cookie goes with any request the browser makes, so
// it never authorizes a write). A token is checked within its client's
// budget of wrong ones (guesses.go): past it, wait is how long until the
// next is.
func (s *Server) authorize(r *http.Request) (ok bool, wait time.Duration) {
	token, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found && overHTTPS(r) && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		if c, err := r.Cookie(abi.SessionCookie); err == nil {
			token, found = c.Value, true
		}
	}
	if !found {
		return false, 0
	}
	return s.checkToken(r, token)
}

// checkToken checks one token that r's client sent, unless the client has
// spent its budget of wrong ones.
func (s *Server) checkToken(r *http.Request, token string) (ok bool, wait time.Duration) {
	addr := remoteAddr(r)
	if wait := s.guesses.retryAfter(addr); wait > 0 {
		return false, wait
	}
	if s.validToken(token) {
		return true, 0
	}
	s.guesses.wrong(addr)
	return false, 0
}

func (s *Server) validToken(token string) bool {
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.cfg.Token)) == 1
}

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
