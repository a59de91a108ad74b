package apiserver

import "github.com/kube32/kube32/abi"

// registerChannels serves the cluster's channels (host/abi.ChannelsPath) when
// the cluster gave a handler: workers forward their pods' publishes there
// and follow every message from there. The bearer token applies.
func (s *Server) registerChannels() {
	if s.cfg.Channels == nil {
		return
	}
	s.mux.Handle(abi.ChannelsPath, s.cfg.Channels)
	s.mux.Handle(abi.ChannelsPath+"/", s.cfg.Channels)
}
