package apiserver

import "github.com/kube32/kube32/host/channel"

// registerChannels serves the cluster's channels (host/channel.Path) when
// the cluster gave a handler: workers forward their pods' publishes there
// and follow every message from there. The bearer token applies.
func (s *Server) registerChannels() {
	if s.cfg.Channels == nil {
		return
	}
	s.mux.Handle(channel.Path, s.cfg.Channels)
	s.mux.Handle(channel.Path+"/", s.cfg.Channels)
}
