package k8sinstall

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kube32/kube32/host/apis/kube32v1"
)

// nodeBootstrapRules are all the kube32-node ServiceAccount may do: ask
// for a node's client certificate (host/internal/nodecert), as a
// kubelet's bootstrap identity does. It creates a CSR of signer
// kube-apiserver-client-kubelet and reads it until it is signed;
// kube-controller-manager approves it because the requester may create
// certificatesigningrequests/nodeclient. The node then acts as
// system:node:<name>.
func nodeBootstrapRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		rule("certificates.k8s.io", []string{"certificatesigningrequests"}, "create", "get"),
		rule("certificates.k8s.io", []string{"certificatesigningrequests/nodeclient"}, "create"),
	}
}

// nodeReaderRules are the reads a kube32 node makes, as
// system:node:<name>, beyond those kube-apiserver's Node authorizer allows
// every node (its own Node, Lease and pods, Services, its pods' Events and
// status, TokenReviews and SubjectAccessReviews): a kube32 pod calls pods
// on other nodes, which a kubelet never does. Reads only: every write of
// a node stays held to its own objects. Each rule names the code that
// issues its verbs (host/internal/kubelet).
func nodeReaderRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// kube32Pods lists a namespace's pods to compute a Service's
		// Endpoints from its kube32 pods on every node; TargetPod reads a
		// pod behind a Service for a NetworkPolicy rule.
		rule("", []string{"pods"}, "get", "list"),
		// Node reads the Node of a pod a call goes to: its address and
		// pod port (service.NodeAddr).
		rule("", []string{"nodes"}, "get"),
		// NamespaceLabels, for NetworkPolicy's namespaceSelector.
		rule("", []string{"namespaces"}, "get"),
		// loadPolicies lists the NetworkPolicies of its pods' namespaces.
		rule("networking.k8s.io", []string{"networkpolicies"}, "list"),
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
