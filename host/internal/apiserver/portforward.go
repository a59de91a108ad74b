package apiserver

import (
	"net/http"

	gwebsocket "github.com/gorilla/websocket"
	corev1 "k8s.io/api/core/v1"
	portforwardnames "k8s.io/apimachinery/pkg/util/portforward"
	clientportforward "k8s.io/client-go/tools/portforward"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
	"k8s.io/streaming/pkg/httpstream/wsstream"

	"github.com/kube32/kube32/host/internal/portforward"
)

// servePortForward serves pods/portforward as kube-apiserver and the
// kubelet do together, over either transport kubectl speaks: SPDY
// tunnelled through a WebSocket (kubectl 1.31 and later, the
// "SPDY/3.1+portforward.k8s.io" subprotocol), or a plain SPDY upgrade (the
// fallback, KUBECTL_PORT_FORWARD_WEBSOCKETS=false). Either way the session
// is SPDY streams in pairs (host/internal/portforward), each pair one TCP
// connection to a port of the pod, which reaches the pod's HTTP handler.
func (s *Server) servePortForward(w http.ResponseWriter, r *http.Request, req request) {
	obj, err := s.get(req)
	if err != nil {
		writeStatus(w, err)
		return
	}
	p := obj.(*corev1.Pod)
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
		writeStatus(w, badRequest("pod %s/%s is not running (phase %s): there is nothing to forward to", p.Namespace, p.Name, p.Status.Phase))
		return
	}
	if err := beginStream(w, r); err != nil {
		writeStatus(w, err)
		return
	}
	f := portforward.New(p, s.podHandler(p.Namespace, p.Name, p.UID))
	switch {
	case wsstream.IsWebSocketRequestWithTunnelingProtocol(r):
		up := gwebsocket.Upgrader{Subprotocols: []string{portforwardnames.WebsocketsSPDYTunnelingPortForwardV1}}
		ws, err := up.Upgrade(w, r, nil) // it answers a failed upgrade itself
		if err != nil {
			return
		}
		conn, err := spdy.NewServerConnectionWithPings(clientportforward.NewTunnelingConnection("server", ws), f.NewStream, portforward.Ping)
		if err != nil {
			ws.Close()
			return
		}
		f.Run(conn)
	case httpstream.IsUpgradeRequest(r):
		f.ServeSPDY(w, r)
	default:
		writeStatus(w, badRequest("pods/portforward needs a connection upgrade: a WebSocket (%s) or SPDY/3.1 (%s)",
			portforwardnames.WebsocketsSPDYTunnelingPortForwardV1, portforwardnames.PortForwardV1Name))
	}
}
