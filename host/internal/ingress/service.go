package ingress

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	kpod "github.com/kube32/kube32/host/internal/pod"
	svcs "github.com/kube32/kube32/host/internal/service"
)

// serviceBackend balances requests round-robin over a Service's running
// pods, the Ready ones first; with none it answers 503 with Retry-After
// abi.RetryAfterNoPod. A pod whose node cannot be reached before a byte
// of the request is sent is skipped for the next (docs/nodes.md).
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
	kpod.DropReservedCookies(r.Header) // the token stays on this node (docs/ui.md)
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
		if unreachable == nil {
			if err := replayable(r); err != nil {
				writeError(w, http.StatusBadRequest, map[string]string{"error": "request body unreadable", "reason": err.Error()})
				return
			}
		}
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
	if len(b.backends) == 0 {
		return nil
	}
	out := make([]svcs.Backend, 0, len(b.backends))
	for _, ready := range [2]bool{true, false} {
		start := len(out)
		for _, be := range b.backends {
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

// replayable makes r's body one that can be sent again to another pod:
// r.GetBody as the server left it, or the body read into memory.
func replayable(r *http.Request) error {
	if r.GetBody != nil || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return err
	}
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	r.Body, _ = r.GetBody()
	return nil
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
