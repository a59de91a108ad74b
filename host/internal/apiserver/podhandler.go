package apiserver

import (
	"net"
	"net/http"
	"net/http/httputil"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/nodehop"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// podPool carries port-forwarded requests to the pod ports of the workers:
// HTTP/1.1 only, no proxy from the environment, no transparent gzip (the
// pod gets the client's Accept-Encoding and the client the body as sent),
// within the limits of the nodes' own pool (host/internal/nodehop). A
// forwarded request's body streams, so it goes through net/http's client.
var podPool = &http.Transport{
	DialContext:         (&net.Dialer{Timeout: nodehop.DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConns:        nodehop.IdleTotal,
	MaxIdleConnsPerHost: nodehop.IdlePerNode,
	IdleConnTimeout:     nodehop.IdleTimeout,
	DisableCompression:  true,
}

// podHandler reaches the pod namespace/name of the given uid wherever it
// runs, as the Ingress does (the session strips what only nodes send,
// host/internal/portforward): in-process on the control plane
// (Config.Local), else through its node's pod port with abi.HeaderPod. The
// pod is looked up at each request, so a request after it went, or was
// replaced, answers 503.
func (s *Server) podHandler(namespace, name string, uid types.UID) http.Handler {
	id := abi.PodID(namespace, name)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		obj, ok := s.cfg.Store.Get(store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name})
		if !ok || obj.(*corev1.Pod).UID != uid {
			http.Error(w, "pod "+id+" is gone", http.StatusServiceUnavailable)
			return
		}
		if s.cfg.Local != nil {
			if h, ok := s.cfg.Local.Handler(namespace, name); ok {
				h.ServeHTTP(w, r)
				return
			}
		}
		node, ok := s.cfg.Store.Get(store.Key{Kind: kinds.Node, Name: obj.(*corev1.Pod).Spec.NodeName})
		if !ok || service.NodeAddr(node.(*corev1.Node)) == "" {
			http.Error(w, "pod "+id+" runs on no node that can be reached", http.StatusServiceUnavailable)
			return
		}
		nodeAddr := service.NodeAddr(node.(*corev1.Node))
		rp := &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.Out.URL.Scheme, pr.Out.URL.Host = "http", nodeAddr
				pr.Out.Host = r.Host
				pr.Out.Header.Set(abi.HeaderPod, id)
			},
			Transport: podPool,
			ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
				http.Error(w, "pod "+id+": its node "+nodeAddr+" is unreachable: "+err.Error(), http.StatusBadGateway)
			},
		}
		rp.ServeHTTP(w, r)
	})
}
