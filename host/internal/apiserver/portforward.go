package apiserver

import (
	"net/http"
	"time"

	gwebsocket "github.com/gorilla/websocket"
	corev1 "k8s.io/api/core/v1"
	portforwardnames "k8s.io/apimachinery/pkg/util/portforward"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// portForwardPing is how often the API server pings a port-forward
// session, so that an idle one stays open through what lies between.
const portForwardPing = 10 * time.Second

// servePortForward serves pods/portforward as kube-apiserver and the
// kubelet do together, over either transport kubectl speaks: SPDY
// tunnelled through a WebSocket (kubectl 1.31 and later, the
// "SPDY/3.1+portforward.k8s.io" subprotocol), or a plain SPDY upgrade (the
// fallback, KUBECTL_PORT_FORWARD_WEBSOCKETS=false). Either way the session
// is SPDY streams in pairs (forward.go), each pair one TCP connection to a
// port of the pod, which reaches the pod's HTTP handler.
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
	f := newForwarding(p, s.podHandler(p.Namespace, p.Name, p.UID))
	var conn httpstream.Connection
	switch {
	case wsstream.IsWebSocketRequestWithTunnelingProtocol(r):
		up := gwebsocket.Upgrader{Subprotocols: []string{portforwardnames.WebsocketsSPDYTunnelingPortForwardV1}}
		ws, err := up.Upgrade(w, r, nil) // it answers a failed upgrade itself
		if err != nil {
			return
		}
		if conn, err = spdy.NewServerConnectionWithPings(portforward.NewTunnelingConnection("server", ws), f.newStream, portForwardPing); err != nil {
			ws.Close()
			return
		}
	case httpstream.IsUpgradeRequest(r):
		if _, err := httpstream.Handshake(r, w, []string{portforwardnames.PortForwardV1Name}); err != nil {
			return // Handshake answered
		}
		if conn = spdy.NewResponseUpgraderWithPings(portForwardPing).UpgradeResponse(w, r, f.newStream); conn == nil {
			return // the upgrader answered
		}
	default:
		writeStatus(w, badRequest("pods/portforward needs a connection upgrade: a WebSocket (%s) or SPDY/3.1 (%s)",
			portforwardnames.WebsocketsSPDYTunnelingPortForwardV1, portforwardnames.PortForwardV1Name))
		return
	}
	f.run(conn)
}
