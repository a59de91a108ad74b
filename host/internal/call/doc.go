// Package call carries out k32_http_call for a node: it parses the call's URL
// into a Target the way docs/calls.md, "Where a URL goes", says, calls hosts
// outside the cluster over plain http:// itself (Outside), and hands calls to
// Services in the cluster to a Services implementation, which the node
// provides (from the object store on the control plane, from the API server
// on workers). https:// calls go to an HTTPS: the control plane's TLS
// sessions (TLS), which its egress gateway shares, or on a worker the client
// of that gateway (Egress).
//
// Caller ties the three together and implements pod.Caller, so a node
// passes it as pod.Config.Caller.
package call
