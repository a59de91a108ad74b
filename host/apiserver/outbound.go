package apiserver

import (
	"net/http"

	"github.com/kube32/kube32/host/internal/outbound"
)

// nodes tells the nodes from the other clients, for the egress gateway
// and the relay (host/internal/outbound), with the API server's token
// check.
func (s *Server) nodes() *outbound.Nodes {
	return &outbound.Nodes{Store: s.cfg.Store, Token: s.cfg.Token, Authorized: s.authorized}
}

// relay is the handler of CONNECT: the relay when the API server has the
// uplink (it checks the token itself, or the node's address), 405 otherwise.
func (s *Server) relay() http.Handler {
	if s.cfg.Uplink == nil || s.cfg.Store == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no relay to hosts outside here", http.StatusMethodNotAllowed)
		})
	}
	return s.cfg.Uplink.RelayHandler(s.nodes())
}
