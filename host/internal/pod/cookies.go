package pod

import (
	"net/http"
	"strings"

	"github.com/kube32/kube32/abi"
)

// DropReservedCookies takes the abi.ReservedCookies out of the Cookie
// headers of h: the web view's session cookie goes with every request a
// browser makes to this host, whatever the port, and a pod must never see
// the cluster token (docs/ui.md, "The token"). Pod.ServeHTTP calls it for
// every request a pod handles (from the Ingress, the pod port and other
// pods' calls alike); the Ingress and port-forward call it too before a
// request leaves for another node, so that the token stays on the node
// that received it.
func DropReservedCookies(h http.Header) {
	for name, values := range h {
		if !strings.EqualFold(name, "Cookie") {
			continue
		}
		kept := values[:0:0]
		for _, v := range values {
			if v, _ = abi.WithoutReservedCookies(v); v != "" {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			delete(h, name)
		} else {
			h[name] = kept
		}
	}
}
