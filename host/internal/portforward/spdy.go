package portforward

import (
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/portforward"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"

	"github.com/kube32/kube32/abi"
)

// Ping is how often a session's connection is pinged, so that an idle one
// stays open through what lies between.
const Ping = 10 * time.Second

// ServeSPDY serves the session over a plain SPDY/3.1 upgrade of r (the
// portforward.k8s.io protocol, as kubelets serve it) until the client
// goes. A request that is no such upgrade is answered 400 by the
// handshake or the upgrader.
func (f *Session) ServeSPDY(w http.ResponseWriter, r *http.Request) {
	if _, err := httpstream.Handshake(r, w, []string{portforward.PortForwardV1Name}); err != nil {
		return // Handshake answered
	}
	conn := spdy.NewResponseUpgraderWithPings(Ping).UpgradeResponse(w, r, f.NewStream)
	if conn == nil {
		return // the upgrader answered
	}
	f.Run(conn)
}

// fromClient strips from a forwarded request what only nodes may send: a
// client forwarding a port is not a pod of the cluster.
func fromClient(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(abi.HeaderCallChain) // only nodes set it
		abi.DropReservedCookies(r.Header) // the token stays on this node (docs/ui.md)
		h.ServeHTTP(w, r)
	})
}
