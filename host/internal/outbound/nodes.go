package outbound

import (
	"net"
	"net/http"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// Nodes tells the cluster's nodes from its other clients, for the two
// services the control plane offers nodes only: the egress gateway and
// the relay (docs/calls.md, "The egress gateway"; docs/nodes.md, "The
// uplink").
type Nodes struct {
	// Store holds the Nodes and Pods.
	Store *store.Store
	// Gate is the API port's token check (each client's budget of wrong
	// tokens included); nil or open, the cluster has no token.
	Gate *apiauth.Gate
}

// tokened reports whether the cluster has a token, which then
// authenticates a node rather than its address.
func (n *Nodes) tokened() bool { return n.Gate != nil && !n.Gate.Open() }

// authenticateNode says why r does not come from a node, or "" when it
// does: with a token, r must carry it; without one, r must come from the
// InternalIP of node, or of any Node when node is "".
func (n *Nodes) authenticateNode(r *http.Request, node string) string {
	if n.tokened() {
		switch {
		case n.Gate.Authorized(r):
			return ""
		case r.Header.Get("Authorization") == "":
			return "no bearer token"
		}
		return "wrong bearer token"
	}
	remote := remoteAddr(r)
	if node != "" {
		o, ok := n.Store.Get(store.Key{Kind: kinds.Node, Name: node})
		if !ok {
			return "the pod's node " + node + " does not exist"
		}
		if internalIP(o.(*corev1.Node), remote) {
			return ""
		}
		return "not the InternalIP of node " + node
	}
	for _, o := range n.Store.List(kinds.Node, "") {
		if internalIP(o.(*corev1.Node), remote) {
			return ""
		}
	}
	return "not the InternalIP of a Node"
}

// internalIP reports whether a is an InternalIP of n.
func internalIP(n *corev1.Node, a netip.Addr) bool {
	for _, na := range n.Status.Addresses {
		if ip, err := netip.ParseAddr(na.Address); err == nil && na.Type == corev1.NodeInternalIP && a.IsValid() && ip.Unmap() == a {
			return true
		}
	}
	return false
}

// remoteAddr is the IP address r came from.
func remoteAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}
