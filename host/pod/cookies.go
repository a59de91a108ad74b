package pod

import (
	"net/http"
	"strings"

	"github.com/kube32/kube32/abi"
)

// dropReservedCookies takes the abi.ReservedCookies out of r's Cookie
// headers before r reaches the pod: the web view's session cookie goes
// with every request a browser makes to this host, whatever the port, and
// a pod must never see the cluster token (docs/ui.md, "The token"). Every
// request a pod handles passes here: from the Ingress, the pod port and
// other pods' calls alike.
func dropReservedCookies(r *http.Request) {
	for name, values := range r.Header {
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
			delete(r.Header, name)
		} else {
			r.Header[name] = kept
		}
	}
}
