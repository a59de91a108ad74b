package k8sinstall

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kube32/kube32/host/apis/kube32v1"
)

// nodeRules are what a kube32 node does on the API server, and nothing
// more: no secrets, no configmaps, no writes to other objects. Each rule
// names the code that issues its verbs.
func nodeRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// RegisterNode creates, gets and updates its Node and its status;
		// RenewLease gets it; list, watch and patch for a node that watches
		// its Node and patches it, as kubelets do.
		rule("", []string{"nodes"}, "get", "list", "watch", "create", "update", "patch"),
		rule("", []string{"nodes/status"}, "get", "update", "patch"),
		// Changes lists and watches its pods (spec.nodeName=<node>, across
		// namespaces), netpol reads a pod by name, DeletePod deletes one.
		rule("", []string{"pods"}, "get", "list", "watch", "delete"),
		// UpdatePodStatus.
		rule("", []string{"pods/status"}, "update", "patch"),
		// Record creates an Event, or gets and updates it to count again.
		rule("", []string{"events"}, "get", "create", "update", "patch"),
		// Service calls resolve Services and Endpoints (get, and list per
		// namespace for the pods' environment); NetworkPolicy reads
		// namespaces and policies.
		rule("", []string{"services", "endpoints", "namespaces"}, "get", "list", "watch"),
		rule("discovery.k8s.io", []string{"endpointslices"}, "get", "list", "watch"),
		rule("networking.k8s.io", []string{"networkpolicies"}, "get", "list", "watch"),
		// The node's kubelet API (logs, exec, port-forward, stats) checks
		// the caller's token and its permission, as kubelets do.
		rule("authentication.k8s.io", []string{"tokenreviews"}, "create"),
		rule("authorization.k8s.io", []string{"subjectaccessreviews"}, "create"),
	}
}

// ingressRules are what `kube32 ingress` does (host/internal/mirror): it
// lists and watches what the controller routes by, and writes the
// status of the Ingresses it routes. It records no Events.
func ingressRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule("networking.k8s.io", []string{"ingresses", "ingressclasses"}, "get", "list", "watch"),
		// publishAddress (host/internal/ingress/controller.go) through the
		// mirror's status patch.
		rule("networking.k8s.io", []string{"ingresses/status"}, "update", "patch"),
		rule("", []string{"services", "pods", "nodes"}, "get", "list", "watch"),
		rule(kube32v1.GroupName, []string{kube32v1.StaticBundles}, "get", "list", "watch"),
	}
}
