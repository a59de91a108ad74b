// Package kubeletapi serves the kubelet API of a kube32 node that joined a
// Kubernetes cluster (docs/kubeletapi.md): kube-apiserver calls it, as it
// calls any kubelet, at the Node's InternalIP and kubelet endpoint port for
// `kubectl logs` (containerLogs) and `kubectl port-forward` (portForward),
// and metrics-server for /metrics/resource. exec, attach and run are
// refused: a kube32 pod has no shell. Every request is authenticated and
// authorized as a kubelet in webhook mode does it (auth.go), failing
// closed.
package kubeletapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/servingcert"
)

// Pods are the pods of the node: its kubelet (host/internal/kubelet).
type Pods interface {
	// Running returns the Pod a pod of the node was started from and its
	// runtime's status; ok is false when it does not run on the node.
	Running(namespace, name string) (spec *corev1.Pod, status pod.Status, ok bool)
	// FollowLogs returns the pod's kept log lines and a channel of the
	// lines that follow until stop is called.
	FollowLogs(namespace, name string) (lines []pod.Line, next <-chan pod.Line, stop func(), ok bool)
	// Handler returns the pod's HTTP handler while it runs.
	Handler(namespace, name string) (http.Handler, bool)
}

// Config describes the kubelet API of one node.
type Config struct {
	// NodeName is the Node's name: the name every SubjectAccessReview asks
	// about (nodes/<name>/proxy, ...).
	NodeName string
	// NodeIP is the Node's InternalIP, which the serving certificate is
	// made for.
	NodeIP string
	Pods   Pods
	// ResourceMetrics, when set, serves GET /metrics/resource.
	ResourceMetrics http.Handler
	// ClientCAs verify the client certificates the API takes
	// (kube-apiserver's --kubelet-client-certificate is signed by the
	// cluster's CA); nil takes none, only bearer tokens.
	ClientCAs *x509.CertPool
	// Reviews is the client of the cluster the API sends its TokenReviews
	// and SubjectAccessReviews to; its user needs to create both. Required.
	Reviews *rest.Config
	// Conns is the connection budget the API's connections count in; nil
	// makes one of its own (httplimit.DefaultMaxConns).
	Conns *httplimit.Conns
	// Limits are its timeouts; zero fields take httplimit's defaults.
	Limits httplimit.Limits
}

// Server is the kubelet API of a node, over TLS.
type Server struct {
	cfg     Config
	reviews *reviewer
	// tokenReviews is each client address's budget of tokens to review.
	tokenReviews *apiauth.Budget
	http         *httplimit.Server
	tls          *tls.Config
}

// New returns the kubelet API of cfg; Serve serves it.
func New(cfg Config) (*Server, error) {
	if cfg.NodeName == "" || cfg.Pods == nil {
		return nil, fmt.Errorf("kubelet API: Config needs NodeName and Pods")
	}
	reviews, err := newReviewer(cfg.NodeName, cfg.Reviews)
	if err != nil {
		return nil, err
	}
	hosts := []string{cfg.NodeName}
	if cfg.NodeIP != "" {
		hosts = append(hosts, cfg.NodeIP)
	}
	cert, err := servingcert.ForNode(hosts...)
	if err != nil {
		return nil, fmt.Errorf("kubelet API of node %s: %w", cfg.NodeName, err)
	}
	if cfg.Conns == nil {
		cfg.Conns = httplimit.NewConns(0)
	}
	s := &Server{cfg: cfg, reviews: reviews, tokenReviews: apiauth.NewBudget(nil)}
	// A client certificate is asked for, not required: a bearer token
	// will do too. It is verified by guard, so that a wrong one is a
	// plain 401 rather than a failed handshake.
	s.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"}, ClientAuth: tls.RequestClientCert}
	s.http = cfg.Conns.NewServer(s.routes(), cfg.Limits)
	return s, nil
}

// Serve serves the API over TLS on l until Close; TLS runs inside the
// connection budget, so that a connection stuck in its handshake is idle
// and makes room like any other.
func (s *Server) Serve(l net.Listener) error {
	return s.http.Serve(tls.NewListener(l, s.tls))
}

// Close closes the listeners and every connection, streams included.
func (s *Server) Close() error { return s.http.Close() }

// Shutdown stops taking connections and waits for the requests in
// progress until ctx ends.
func (s *Server) Shutdown(ctx context.Context) error { return s.http.Shutdown(ctx) }

// routes are the kubelet's paths a kube32 node serves, each with the
// methods a kubelet takes on it and behind guard: any other path answers
// 404 and any other method 405, as a kubelet's, before any review, so that
// invented methods and paths cost the cluster nothing.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, s.guard(h)) }
	handle("GET /healthz", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })
	handle("GET /containerLogs/{namespace}/{pod}/{container}", s.serveLogs)
	for _, p := range []string{"/portForward/{namespace}/{pod}", "/portForward/{namespace}/{pod}/{uid}"} {
		handle("GET "+p, s.servePortForward)
		handle("POST "+p, s.servePortForward)
	}
	// A kubelet takes GET and POST on exec and attach, POST on run.
	for what, methods := range map[string][]string{"exec": {"GET", "POST"}, "attach": {"GET", "POST"}, "run": {"POST"}} {
		for _, m := range methods {
			handle(m+" /"+what+"/{namespace}/{pod}/", func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, pod.NoShell(r.PathValue("namespace"), r.PathValue("pod"), what), http.StatusBadRequest)
			})
		}
	}
	if s.cfg.ResourceMetrics != nil {
		handle("GET /metrics/resource", s.cfg.ResourceMetrics.ServeHTTP)
	}
	return mux
}
