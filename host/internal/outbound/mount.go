package outbound

import (
	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/store"
)

// Mount serves the control plane's halves of the two protocols a worker
// speaks with it on its API port (docs/design.md, "One token check on the
// API port"): the egress gateway and the relay (CONNECT) check the token,
// or that the client is a node, themselves, so that they answer and log a
// refusal in their own words; the uplink's state is behind the port's gate.
// Each body is of the media type its client sends, as the port's rule
// checks it (apiauth.EgressBody, apiauth.UplinkBody).
// s holds the Nodes and Pods they authenticate against.
func Mount(port *apiauth.Mux, s *store.Store, gw *Gateway, up *Uplink) {
	nodes := &Nodes{Store: s, Gate: port.Gate()}
	port.HandlePublic("POST "+abi.EgressPath, gw.Handler(nodes))
	port.Handle("GET "+abi.UplinkPath, up.StateHandler())
	port.Handle("PUT "+abi.UplinkPath, apiauth.RequireBody(apiauth.UplinkBody, up.StateHandler()))
	port.HandleConnect(up.RelayHandler(nodes))
}
