// Package kinds names the kinds the cluster serves and holds the Scheme
// that maps their Go types to them. It is a leaf: the store, the
// controllers and the kubelets name kinds with it, and host/internal/admission
// builds each kind's strategy on it (docs/design.md, "How objects enter
// the store").
package kinds

// The served kinds, as a store.Key and an object's TypeMeta name them.
// Each has its strategy in host/internal/admission (strategy.go).
const (
	Namespace     = "Namespace"
	Node          = "Node"
	Pod           = "Pod"
	Service       = "Service"
	Endpoints     = "Endpoints"
	Event         = "Event"
	EndpointSlice = "EndpointSlice"
	Ingress       = "Ingress"
	NetworkPolicy = "NetworkPolicy"
	Lease         = "Lease"
	StaticBundle  = "StaticBundle"
	NodeMetrics   = "NodeMetrics"
	PodMetrics    = "PodMetrics"

	SelfSubjectReview       = "SelfSubjectReview"
	SelfSubjectAccessReview = "SelfSubjectAccessReview"
	SelfSubjectRulesReview  = "SelfSubjectRulesReview"
)
