// Package outbound is the node's edge: everything that leaves a pod goes
// through it. Caller carries out k32_http_call (it implements pod.Caller):
// it parses the call's URL into a Target the way docs/calls.md, "Where a
// URL goes", says, hands Services to a Services implementation (the node's
// call.Cluster) and calls hosts outside the cluster itself: over plain
// http:// (Outside), and over https:// through an HTTPS — the control
// plane's TLS sessions (TLS), or on a worker the client of the control
// plane's egress gateway (Egress).
//
// Policy is the node's one NetworkPolicy check (docs/networkpolicy.md),
// built once per node over its Source; every way out calls its Check, and
// a part handed no Policy refuses every call. Both halves of the two
// protocols between a worker and the control plane live here side by side:
// the egress gateway (egress_client.go, egress_server.go) and the relay
// through the control plane's uplink (relay_client.go, relay_server.go),
// with one node authentication (nodes.go) and one table of K32_ERR_* codes
// and HTTP statuses (status.go). Only this package opens connections to
// hosts outside the cluster.
package outbound
