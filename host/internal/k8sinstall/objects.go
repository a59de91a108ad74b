// Package k8sinstall is what `kube32 install` applies to a Kubernetes
// cluster so that kube32 nodes and the kube32 Ingress controller can join
// it (docs/kubernetes-install.md): the StaticBundle
// CustomResourceDefinition, the RuntimeClass and IngressClass kube32, and
// the least RBAC each component needs. The objects are built here, in Go,
// from abi's names: this file is their one home.
package k8sinstall

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/kube32v1"
)

// The ServiceAccounts (in abi.NamespaceSystem) and the ClusterRoles of the
// two components, which share their names. kube32-node is only the
// identity a node asks for its own with (host/internal/nodecert); a node
// then acts as system:node:<name>, held to its own objects by the Node
// authorizer and NodeRestriction, with NodeReader besides.
const (
	NodeAccount    = "kube32-node"
	IngressAccount = "kube32-ingress"
)

// NodeReader is the ClusterRole, and its binding to every node (group
// system:nodes), of the reads a kube32 node makes beyond what the Node
// authorizer allows a node (nodeReaderRules).
const NodeReader = "kube32-node-reader"

// NodeRenewal binds kube-apiserver's ClusterRole selfNodeClient to every
// node, so that kube-controller-manager approves the CSR with which a node
// renews its own certificate, as kubeadm's clusters do.
const NodeRenewal = "kube32-node-renewal"

// selfNodeClient is kube-apiserver's built-in ClusterRole that lets a node
// ask for a certificate of its own name (certificatesigningrequests/
// selfnodeclient); nodesGroup is the group of every node's user.
const (
	selfNodeClient = "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient"
	nodesGroup     = "system:nodes"
)

// kube32Nodes are labels every kube32 node carries
// (host/internal/kubelet/node.go): the RuntimeClass sends kube32 pods to
// nodes with both.
var kube32Nodes = map[string]string{"kubernetes.io/os": "kube32", "kubernetes.io/arch": "wasm32"}

// Objects are the objects `kube32 install` applies, in the order it
// applies them (a namespace before what lives in it, a CRD first).
func Objects() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range []runtime.Object{
		staticBundleCRD(),
		runtimeClass(),
		ingressClass(),
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: abi.NamespaceSystem}},
		serviceAccount(NodeAccount),
		serviceAccount(IngressAccount),
		clusterRole(NodeAccount, nodeBootstrapRules()),
		clusterRole(IngressAccount, ingressRules()),
		clusterRole(NodeReader, nodeReaderRules()),
		clusterRoleBinding(NodeAccount, NodeAccount, serviceAccountSubject(NodeAccount)),
		clusterRoleBinding(IngressAccount, IngressAccount, serviceAccountSubject(IngressAccount)),
		clusterRoleBinding(NodeReader, NodeReader, nodesSubject),
		clusterRoleBinding(NodeRenewal, selfNodeClient, nodesSubject),
	} {
		out = append(out, toUnstructured(o))
	}
	return out
}

// toUnstructured turns a typed object, or a CRD already unstructured, into
// what the dynamic client applies, with its apiVersion and kind.
func toUnstructured(o runtime.Object) *unstructured.Unstructured {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return u
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		panic(err) // a programming error: the objects are fixed at compile time
	}
	u := &unstructured.Unstructured{Object: m}
	// creationTimestamp: null is what the converter writes for an unset
	// time; an applied configuration must not claim the field.
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u
}

// staticBundleCRD defines kube32v1.StaticBundle. The schema is structural
// and lists StaticBundleSpec's fields, plus spec.image (the OCI reference
// of a bundle, docs/bundles.md), so that the API server keeps both.
func staticBundleCRD() *unstructured.Unstructured {
	str := map[string]any{"type": "string"}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": kube32v1.StaticBundles + "." + kube32v1.GroupName},
		"spec": map[string]any{
			"group": kube32v1.GroupName,
			"scope": "Namespaced",
			"names": map[string]any{
				"plural": kube32v1.StaticBundles, "singular": "staticbundle",
				"kind": "StaticBundle", "listKind": "StaticBundleList",
			},
			"versions": []any{map[string]any{
				"name": kube32v1.SchemeGroupVersion.Version, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object",
							"properties": map[string]any{
								"description": str,
								"image":       str,
							},
						},
					},
				}},
			}},
		},
	}}
}

// runtimeClass is the RuntimeClass of kube32 pods: its scheduling adds,
// at admission, the node selector of kube32 nodes and the toleration of
// their taint to every pod that names it.
func runtimeClass() *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "node.k8s.io/v1", Kind: "RuntimeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: abi.RuntimeClassName},
		Handler:    abi.RuntimeClassName,
		Scheduling: &nodev1.Scheduling{
			NodeSelector: kube32Nodes,
			Tolerations: []corev1.Toleration{{
				Key: abi.TaintWasm, Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule,
			}},
		},
	}
}

// ingressClass is the IngressClass that `kube32 ingress` routes. It is not
// marked default: an Ingress names it, or an administrator marks it.
func ingressClass() *networkingv1.IngressClass {
	return &networkingv1.IngressClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"},
		ObjectMeta: metav1.ObjectMeta{Name: abi.IngressClassName},
		Spec:       networkingv1.IngressClassSpec{Controller: abi.IngressControllerName},
	}
}

func serviceAccount(name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: abi.NamespaceSystem},
	}
}

func clusterRole(name string, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      rules,
	}
}

// clusterRoleBinding binds the ClusterRole role to subject.
func clusterRoleBinding(name, role string, subject rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{subject},
	}
}

func serviceAccountSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: abi.NamespaceSystem}
}

// nodesSubject is every node of the cluster.
var nodesSubject = rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: nodesGroup}

// Stale are objects earlier versions of install applied that this one no
// longer does; Apply deletes those it finds applied by kube32 install. The
// Role and RoleBinding kube32-node in abi.NamespaceNodeLease let the
// ServiceAccount renew Leases when nodes acted as it.
func Stale() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, kind := range []string{"Role", "RoleBinding"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("rbac.authorization.k8s.io/v1")
		u.SetKind(kind)
		u.SetName(NodeAccount)
		u.SetNamespace(abi.NamespaceNodeLease)
		out = append(out, u)
	}
	return out
}

func rule(group string, resources []string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: verbs}
}
