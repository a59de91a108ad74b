package ingress

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/call"
	svcs "github.com/kube32/kube32/host/service"
	"github.com/kube32/kube32/host/store"
)

// LocalPods gives the in-process handlers of the pods on the control plane.
type LocalPods interface {
	Handler(namespace, name string) (http.Handler, bool)
}

// endpoint is one running pod behind a Service.
type endpoint struct {
	namespace, name string
	nodeName        string
	targetPort      int32
	// addr is the pod HTTP server of the pod's worker node
	// ("<InternalIP>:<pod port>"); "" for a pod on the control plane.
	addr string
}

// serviceBackend balances requests round-robin over a Service's running
// pods; with none it answers 503 with Retry-After abi.RetryAfterNoPod.
type serviceBackend struct {
	service   string
	endpoints []endpoint
	next      atomic.Uint64
	local     LocalPods
}

func (b *serviceBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Only nodes set the call chain: a client's would make its pod's calls
	// fail with K32_ERR_LOOP.
	r.Header.Del(abi.HeaderCallChain)
	for range b.endpoints {
		ep := b.endpoints[int(b.next.Add(1)-1)%len(b.endpoints)]
		// The pod runs on the control plane: call its k32_handle in-process.
		if h, ok := b.local.Handler(ep.namespace, ep.name); ok {
			h.ServeHTTP(w, r)
			return
		}
		// The pod runs on a worker: proxy to its node's pod HTTP server.
		if ep.addr != "" {
			proxyToNode(w, r, ep)
			return
		}
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(abi.RetryAfterNoPod/time.Second)))
	http.Error(w, fmt.Sprintf("service %s has no running pod", b.service), http.StatusServiceUnavailable)
}

// resolveServiceBackend finds the Service a backend names in namespace and
// the running pods it selects, with the target port resolved per pod.
func resolveServiceBackend(s *store.Store, namespace string, ref *networkingv1.IngressServiceBackend, local LocalPods) (*serviceBackend, error) {
	obj, ok := s.Get(store.Key{Kind: "Service", Namespace: namespace, Name: ref.Name})
	b := &serviceBackend{service: namespace + "/" + ref.Name, local: local}
	if !ok {
		return b, fmt.Errorf("service %s/%s not found", namespace, ref.Name)
	}
	svc := obj.(*corev1.Service)
	port, err := servicePort(svc, ref.Port)
	if err != nil {
		return b, err
	}
	for _, p := range svcs.SelectPods(s, svc) {
		if target, ok := svcs.ResolveTargetPort(port, p); ok {
			b.endpoints = append(b.endpoints, endpoint{namespace: p.Namespace, name: p.Name, nodeName: p.Spec.NodeName,
				targetPort: target, addr: workerAddr(s, p.Spec.NodeName)})
		}
	}
	return b, nil
}

// workerAddr is the pod HTTP server of a worker node, "" for the control
// plane (whose pods run in-process) or a node the store does not know.
func workerAddr(s *store.Store, node string) string {
	obj, ok := s.Get(store.Key{Kind: "Node", Name: node})
	if !ok {
		return ""
	}
	n := obj.(*corev1.Node)
	if _, cp := n.Labels[abi.LabelControlPlane]; cp {
		return ""
	}
	return call.NodeAddr(n)
}

// nodePool is the keep-alive pool of the proxied requests to worker nodes.
var nodePool = call.NewPool()

// proxyToNode sends r to pod ep on its worker node over the keep-alive
// pool, with abi.HeaderPod naming the pod, and streams the answer back.
func proxyToNode(w http.ResponseWriter, r *http.Request, ep endpoint) {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", ep.addr
			pr.Out.Host = r.Host
			pr.Out.Header.Set(abi.HeaderPod, ep.namespace+"/"+ep.name)
			pr.SetXForwarded()
		},
		Transport: nodePool,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, fmt.Sprintf("pod %s/%s on node %s: %v", ep.namespace, ep.name, ep.nodeName, err), http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
}

// servicePort finds the Service port a backend names by number or by name.
func servicePort(svc *corev1.Service, ref networkingv1.ServiceBackendPort) (corev1.ServicePort, error) {
	for _, p := range svc.Spec.Ports {
		if (ref.Name != "" && p.Name == ref.Name) || (ref.Name == "" && p.Port == ref.Number) {
			return p, nil
		}
	}
	if ref.Name != "" {
		return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port named %q", svc.Namespace, svc.Name, ref.Name)
	}
	return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port %d", svc.Namespace, svc.Name, ref.Number)
}
