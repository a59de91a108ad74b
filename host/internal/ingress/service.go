package ingress

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httplimit"
	svcs "github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// serviceBackend balances requests round-robin over a Service's running
// pods, the Ready ones first; with none it answers 503 with Retry-After
// abi.RetryAfterNoPod. A pod whose node cannot be reached before a byte
// of the request is sent, or says the pod does not run there, is skipped
// for the next (docs/nodes.md).
//
// The pods are resolved again as soon as the store has changed, rather
// than at the table's next rebuild, so that a pod stops getting requests
// the moment the store says it is terminating (docs/ingress.md).
type serviceBackend struct {
	service  string
	store    *store.Store             // its version says when to resolve again
	resolve  func() []svcs.Backend    // the pods as the store has them
	resolved atomic.Pointer[resolved] // the last resolve
	next     svcs.RoundRobin
	node     string // the controller's node, whose pods are served in-process
	local    svcs.LocalPods
}

// resolved are a Service port's pods as the store had them at version
// from.
type resolved struct {
	from     int64
	backends []svcs.Backend
}

// pods are the Service's pods as the store has them now: resolved again
// once it has changed, which costs nothing between changes.
func (b *serviceBackend) pods() []svcs.Backend {
	version := b.store.Version() // before resolving: a change meanwhile resolves again
	r := b.resolved.Load()
	if r == nil || r.from != version {
		r = &resolved{from: version, backends: b.resolve()}
		b.resolved.Store(r)
	}
	return r.backends
}

func (b *serviceBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The body goes to a pod of either node, and to the next pod when a
	// node cannot be reached, only from memory: the controller reads it
	// first (httplimit.ReadBody, in backend), and so does this when
	// served some other way.
	if !httplimit.InMemory(r) {
		httplimit.ReadBody(b).ServeHTTP(w, r)
		return
	}
	// Only nodes set the call chain: a client's would make its pod's calls
	// fail with K32_ERR_LOOP.
	r.Header.Del(abi.HeaderCallChain)
	abi.DropReservedCookies(r.Header) // the token stays on this node (docs/ui.md)
	var unreachable error
	for _, be := range b.order() {
		// The pod runs on the control plane: call its k32_handle in-process.
		if h, ok := b.local.Handler(be.Namespace, be.Name); ok {
			noteBackend(w, be)
			h.ServeHTTP(w, r)
			return
		}
		if be.Node == b.node || be.Addr == "" {
			continue
		}
		// The pod runs on a worker: proxy to its node's pod HTTP server,
		// or on to the next pod if the node cannot be reached.
		noteBackend(w, be)
		if unreachable = proxyToNode(w, r, be); unreachable == nil {
			return
		}
	}
	if unreachable != nil {
		writeError(w, http.StatusBadGateway, map[string]string{"error": "backend unavailable", "service": b.service,
			"reason": "no pod of the service could be reached: " + unreachable.Error()})
		return
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(abi.RetryAfterNoPod/time.Second)))
	writeError(w, http.StatusServiceUnavailable, map[string]string{"error": "service unavailable", "service": b.service,
		"reason": "the service has no running pod"})
}

// order is the backends to try for one request: the Ready pods from the
// next in the round, then the pods that are running but not Ready (a pod
// of a node gone silent), as a last resort.
func (b *serviceBackend) order() []svcs.Backend {
	backends := b.pods()
	if len(backends) == 0 {
		return nil
	}
	out := make([]svcs.Backend, 0, len(backends))
	for _, ready := range [2]bool{true, false} {
		start := len(out)
		for _, be := range backends {
			if be.Ready == ready {
				out = append(out, be)
			}
		}
		if group := out[start:]; len(group) > 0 {
			rotate(group, b.next.Next(len(group)))
		}
	}
	return out
}

// rotate moves s[i:] before s[:i], in place.
func rotate(s []svcs.Backend, i int) {
	slices.Reverse(s[:i])
	slices.Reverse(s[i:])
	slices.Reverse(s)
}

// resolveServiceBackend finds the Service a backend names in namespace and
// the running, non-terminating pods behind the port it names
// (service.Resolve), and keeps finding them as the store changes.
func (c *Controller) resolveServiceBackend(namespace string, ref *networkingv1.IngressServiceBackend) (*serviceBackend, error) {
	port := svcs.PortRef{Name: ref.Port.Name, Number: ref.Port.Number}
	b := &serviceBackend{service: namespace + "/" + ref.Name, store: c.cfg.Store, node: c.cfg.Node, local: c.cfg.Local}
	b.resolve = func() []svcs.Backend {
		backends, _ := svcs.Resolve(context.Background(), c.objects, namespace, ref.Name, port) // the table's rebuild logs an error
		return backends
	}
	version := c.cfg.Store.Version()
	backends, err := svcs.Resolve(context.Background(), c.objects, namespace, ref.Name, port)
	b.resolved.Store(&resolved{from: version, backends: backends})
	return b, err
}
