package ingress

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"
	"strconv"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/call"
	svcs "github.com/kube32/kube32/host/internal/service"
)

// serviceBackend balances requests round-robin over a Service's running
// pods; with none it answers 503 with Retry-After abi.RetryAfterNoPod.
type serviceBackend struct {
	service  string
	backends []svcs.Backend
	next     svcs.RoundRobin
	node     string // the controller's node, whose pods are served in-process
	local    svcs.LocalPods
}

func (b *serviceBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Only nodes set the call chain: a client's would make its pod's calls
	// fail with K32_ERR_LOOP.
	r.Header.Del(abi.HeaderCallChain)
	for range b.backends {
		be := b.backends[b.next.Next(len(b.backends))]
		// The pod runs on the control plane: call its k32_handle in-process.
		if h, ok := b.local.Handler(be.Namespace, be.Name); ok {
			h.ServeHTTP(w, r)
			return
		}
		// The pod runs on a worker: proxy to its node's pod HTTP server.
		if be.Node != b.node && be.Addr != "" {
			proxyToNode(w, r, be)
			return
		}
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(abi.RetryAfterNoPod/time.Second)))
	http.Error(w, fmt.Sprintf("service %s has no running pod", b.service), http.StatusServiceUnavailable)
}

// resolveServiceBackend finds the Service a backend names in namespace and
// the running pods behind the port it names.
func (c *Controller) resolveServiceBackend(namespace string, ref *networkingv1.IngressServiceBackend) (*serviceBackend, error) {
	b := &serviceBackend{service: namespace + "/" + ref.Name, node: c.cfg.Node, local: c.cfg.Local}
	var err error
	port := svcs.PortRef{Name: ref.Port.Name, Number: ref.Port.Number}
	b.backends, err = svcs.Resolve(context.Background(), c.objects, namespace, ref.Name, port)
	return b, err
}

// nodePool is the keep-alive pool of the proxied requests to worker nodes.
var nodePool = call.NewPool()

// proxyToNode sends r to pod b on its worker node over the keep-alive
// pool, with abi.HeaderPod naming the pod, and streams the answer back.
func proxyToNode(w http.ResponseWriter, r *http.Request, b svcs.Backend) {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", b.Addr
			pr.Out.Host = r.Host
			pr.Out.Header.Set(abi.HeaderPod, b.ID())
			pr.SetXForwarded()
		},
		Transport: nodePool,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, fmt.Sprintf("pod %s on node %s: %v", b.ID(), b.Node, err), http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
}
