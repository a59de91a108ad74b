// Package call carries a node's calls to Services in the cluster: Cluster
// resolves the Service (from the object store on the control plane, from
// the API server on workers), asks the node's outbound.Policy which of its
// ready pods the caller may reach, and calls one in-process when it runs
// on this node, through Remote (host/internal/nodehop) otherwise. Parsing
// the URL, calls to hosts outside and the checks of every way out live in
// host/internal/outbound, the node's edge, whose Caller hands Service
// targets to a Cluster.
package call
