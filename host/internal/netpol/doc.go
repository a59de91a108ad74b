// Package netpol decides whether NetworkPolicy objects let a pod open a
// connection with k32_http_call, with Kubernetes egress semantics as
// docs/networkpolicy.md ("Rules") states them. It is pure evaluation: the
// caller gathers the policies, the calling pod's labels, the namespaces'
// labels and the destination (a host outside the cluster, or a pod behind a
// Service), and enforces the Decision.
package netpol
