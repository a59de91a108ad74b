package apiserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kube32/kube32/host/internal/call"
)

// uplinkBody is the body of GET and PUT abi.UplinkPath.
type uplinkBody struct {
	Up *bool `json:"up"`
}

// serveUplink is GET abi.UplinkPath: {"up":bool}.
func (s *Server) serveUplink(w http.ResponseWriter, _ *http.Request) {
	up := s.cfg.Uplink.Up()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(uplinkBody{Up: &up})
}

// setUplink is PUT abi.UplinkPath with {"up":bool}: it takes the uplink up
// or down (the control plane logs the change) and answers the new state.
func (s *Server) setUplink(w http.ResponseWriter, r *http.Request) {
	var body uplinkBody
	dec := json.NewDecoder(io.LimitReader(r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Up == nil {
		msg := `the body must be {"up":true} or {"up":false}`
		if err != nil {
			msg = fmt.Sprintf("%s: %v", msg, err)
		}
		writeStatus(w, apierrors.NewBadRequest("uplink: "+msg))
		return
	}
	s.cfg.Uplink.Set(*body.Up)
	s.serveUplink(w, r)
}

// serveRelay is CONNECT <IPv4>:<port>: a worker's connection to a host
// outside, relayed through the control plane's uplink (call.Uplink.ServeRelay).
// Like the egress gateway it serves only nodes: with a token the request
// must carry it, without one it must come from the InternalIP of a Node.
func (s *Server) serveRelay(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Token != "" && !s.authorized(r) || s.cfg.Token == "" && !s.fromNode(r) {
		call.RelayRefused(w)
		return
	}
	s.cfg.Uplink.ServeRelay(w, r)
}

// fromNode reports whether r comes from the InternalIP of a Node.
func (s *Server) fromNode(r *http.Request) bool {
	remote := remoteAddr(r)
	for _, o := range s.cfg.Store.List("Node", "") {
		for _, a := range o.(*corev1.Node).Status.Addresses {
			if ip, err := netip.ParseAddr(a.Address); err == nil && a.Type == corev1.NodeInternalIP && remote.IsValid() && ip.Unmap() == remote {
				return true
			}
		}
	}
	return false
}
