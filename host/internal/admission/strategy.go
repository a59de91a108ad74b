package admission

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, as the boards do (docs/kubectl.md), deprecated upstream since v1.33

import (
	"reflect"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/apis/metricsv1beta1"
	"github.com/kube32/kube32/host/internal/kinds"
)

// Strategy is everything kube32 knows of one served kind, as
// kube-apiserver keeps one strategy per resource: its entry in discovery,
// how an object of it is defaulted and validated, the status a client may
// not set, the fields it can be selected by, how a Table prints it, how a
// computed kind is computed and a review answered, and whether a manifest
// may hold it. Every served kind has one, in Strategies; nothing else
// switches on kinds.
type Strategy struct {
	// The scheme entry, as discovery shows it.
	Group, Version string
	Name           string // plural, e.g. "pods"
	Singular       string
	Kind           string // one of host/internal/kinds' names
	Namespaced     bool
	ShortNames     []string
	Categories     []string
	// New makes an empty object of the kind's Go type.
	New func() runtime.Object
	// Computed kinds (Endpoints, EndpointSlices, metrics) are made on read
	// from other objects: read-only, no watch, never stored.
	Computed bool
	// Compute makes a computed kind's objects of namespace ("" for all)
	// from src, at the store's version (computed.go); nil for the others.
	Compute func(src Sources, namespace string, version int64) []runtime.Object
	// Status is whether it has a status subresource.
	Status bool
	// Review kinds (the SelfSubject…Reviews) answer a create at once and
	// keep nothing: create only.
	Review bool
	// Answer fills in a review's status (reviews.go); nil for the others.
	Answer func(runtime.Object)
	// Manifest is whether a manifest file (serve -f, build) may hold it.
	Manifest bool

	// Default fills in kube-apiserver's defaults; nil when it has none.
	Default func(runtime.Object)
	// Validate lists what kube-apiserver would refuse; nil for a kind the
	// API does not store (Computed, Review), whose writes Admit refuses.
	Validate func(runtime.Object) field.ErrorList
	// ValidateUpdate lists what may not change from old; nil when only
	// Validate applies.
	ValidateUpdate func(obj, old runtime.Object) field.ErrorList
	// ResetStatus clears on create the status a controller writes; nil
	// for kinds whose creator sets it.
	ResetStatus func(runtime.Object)
	// CopyStatus sets dst's status to src's: a status update takes only
	// it, any other update keeps it. Nil for kinds without a status.
	CopyStatus func(dst, src runtime.Object)
	// Warnings says what of an admitted object kube32 accepts but does
	// not do, as kube-apiserver's WarningsOnCreate and WarningsOnUpdate
	// do; nil when nothing of the kind goes unheeded.
	Warnings func(runtime.Object) []string

	// FieldLabels are the fields, beyond metadata.name and
	// metadata.namespace, that a field selector may name, and Fields their
	// values (nil when there are none).
	FieldLabels []string
	Fields      func(runtime.Object) fields.Set
	// Printer is how `kubectl get` prints it, as a server-side Table.
	Printer Printer
}

// Strategies is every served kind, in discovery order.
var Strategies = []*Strategy{
	{Version: "v1", Name: "namespaces", Singular: "namespace", Kind: kinds.Namespace, ShortNames: []string{"ns"},
		New: func() runtime.Object { return &corev1.Namespace{} }, Status: true, Manifest: true,
		Default: defaults(defaultNamespace), Validate: typed(validateNamespace),
		ResetStatus: namespaceStatus.reset(corev1.NamespaceStatus{Phase: corev1.NamespaceActive}), CopyStatus: namespaceStatus.copy,
		FieldLabels: namespaceFieldLabels, Fields: typed(namespaceFields), Printer: namespacePrinter},
	{Version: "v1", Name: "nodes", Singular: "node", Kind: kinds.Node, ShortNames: []string{"no"},
		New: func() runtime.Object { return &corev1.Node{} }, Status: true,
		Validate: typed(validateNode), CopyStatus: nodeStatus.copy, // the nodes register themselves, status and all
		FieldLabels: nodeFieldLabels, Fields: typed(nodeFields), Printer: nodePrinter},
	{Version: "v1", Name: "pods", Singular: "pod", Kind: kinds.Pod, Namespaced: true, ShortNames: []string{"po"}, Categories: []string{"all"},
		New: func() runtime.Object { return &corev1.Pod{} }, Status: true, Manifest: true,
		Default: defaults(defaultPod), Validate: typed(validatePod), ValidateUpdate: typedUpdate(validatePodUpdate),
		ResetStatus: podStatus.reset(corev1.PodStatus{Phase: corev1.PodPending}), CopyStatus: podStatus.copy,
		FieldLabels: podFieldLabels, Fields: typed(podFields), Printer: podPrinter},
	{Version: "v1", Name: "services", Singular: "service", Kind: kinds.Service, Namespaced: true, ShortNames: []string{"svc"}, Categories: []string{"all"},
		New: func() runtime.Object { return &corev1.Service{} }, Status: true, Manifest: true,
		Default: defaults(defaultService), Validate: typed(validateService),
		ResetStatus: serviceStatus.reset(corev1.ServiceStatus{}), CopyStatus: serviceStatus.copy,
		Printer: servicePrinter},
	{Version: "v1", Name: "endpoints", Singular: "endpoints", Kind: kinds.Endpoints, Namespaced: true, ShortNames: []string{"ep"},
		New: func() runtime.Object { return &corev1.Endpoints{} }, Computed: true, Compute: computeEndpoints,
		Printer: endpointsPrinter},
	{Version: "v1", Name: "events", Singular: "event", Kind: kinds.Event, Namespaced: true, ShortNames: []string{"ev"},
		New:         func() runtime.Object { return &corev1.Event{} },
		Validate:    typed(validateEvent),
		FieldLabels: eventFieldLabels, Fields: typed(eventFields), Printer: eventPrinter},
	{Group: "discovery.k8s.io", Version: "v1", Name: "endpointslices", Singular: "endpointslice", Kind: kinds.EndpointSlice, Namespaced: true,
		New: func() runtime.Object { return &discoveryv1.EndpointSlice{} }, Computed: true, Compute: computeEndpointSlices,
		Printer: endpointSlicePrinter},
	{Group: "networking.k8s.io", Version: "v1", Name: "ingresses", Singular: "ingress", Kind: kinds.Ingress, Namespaced: true, ShortNames: []string{"ing"},
		New: func() runtime.Object { return &networkingv1.Ingress{} }, Status: true, Manifest: true,
		Validate:    typed(validateIngress),
		ResetStatus: ingressStatus.reset(networkingv1.IngressStatus{}), CopyStatus: ingressStatus.copy,
		Printer: ingressPrinter},
	{Group: "networking.k8s.io", Version: "v1", Name: "networkpolicies", Singular: "networkpolicy", Kind: kinds.NetworkPolicy, Namespaced: true, ShortNames: []string{"netpol"},
		New: func() runtime.Object { return &networkingv1.NetworkPolicy{} }, Manifest: true,
		Default: defaults(defaultNetworkPolicy), Validate: typed(validateNetworkPolicy), Warnings: typed(networkPolicyWarnings),
		Printer: networkPolicyPrinter},
	{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Singular: "lease", Kind: kinds.Lease, Namespaced: true,
		New:      func() runtime.Object { return &coordinationv1.Lease{} },
		Validate: typed(validateLease),
		Printer:  leasePrinter},
	{Group: kube32v1.GroupName, Version: "v1", Name: "staticbundles", Singular: "staticbundle", Kind: kinds.StaticBundle, Namespaced: true,
		New: func() runtime.Object { return &kube32v1.StaticBundle{} }, Manifest: true,
		Validate: typed(validateStaticBundle),
		Printer:  nameAgePrinter},
	// Read from the nodes on each request (Sources.NodeStats).
	{Group: "metrics.k8s.io", Version: "v1beta1", Name: "nodes", Kind: kinds.NodeMetrics,
		New: func() runtime.Object { return &metricsv1beta1.NodeMetrics{} }, Computed: true, Compute: computeNodeMetrics,
		Printer: nameAgePrinter},
	{Group: "metrics.k8s.io", Version: "v1beta1", Name: "pods", Kind: kinds.PodMetrics, Namespaced: true,
		New: func() runtime.Object { return &metricsv1beta1.PodMetrics{} }, Computed: true, Compute: computePodMetrics,
		Printer: nameAgePrinter},
	{Group: "authentication.k8s.io", Version: "v1", Name: "selfsubjectreviews", Singular: "selfsubjectreview", Kind: kinds.SelfSubjectReview,
		New: func() runtime.Object { return &authenticationv1.SelfSubjectReview{} }, Review: true, Answer: defaults(answerSelfSubjectReview),
		Printer: nameAgePrinter},
	{Group: "authorization.k8s.io", Version: "v1", Name: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Kind: kinds.SelfSubjectAccessReview,
		New: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }, Review: true, Answer: defaults(answerAccessReview),
		Printer: nameAgePrinter},
	{Group: "authorization.k8s.io", Version: "v1", Name: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview", Kind: kinds.SelfSubjectRulesReview,
		New: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }, Review: true, Answer: defaults(answerRulesReview),
		Printer: nameAgePrinter},
}

// byType finds a strategy by its objects' Go type.
var byType = func() map[reflect.Type]*Strategy {
	m := map[reflect.Type]*Strategy{}
	for _, s := range Strategies {
		m[reflect.TypeOf(s.New())] = s
	}
	return m
}()

// StrategyOf is the strategy of obj's kind, or nil for a type kube32 does
// not serve.
func StrategyOf(obj runtime.Object) *Strategy { return byType[reflect.TypeOf(obj)] }

// Selectable reports whether a field selector may name label.
func (s *Strategy) Selectable(label string) bool {
	if label == "metadata.name" || label == "metadata.namespace" {
		return true
	}
	for _, l := range s.FieldLabels {
		if l == label {
			return true
		}
	}
	return false
}

// FieldSet is obj's values of every field it can be selected by.
func (s *Strategy) FieldSet(obj runtime.Object) fields.Set {
	m := obj.(interface {
		GetName() string
		GetNamespace() string
	})
	set := fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()}
	if s.Fields != nil {
		for k, v := range s.Fields(obj) {
			set[k] = v
		}
	}
	return set
}

// typed, defaults (any func of one object) and typedUpdate let the table above name each kind's
// functions on its own Go type.
func typed[T runtime.Object, R any](f func(T) R) func(runtime.Object) R {
	return func(o runtime.Object) R { return f(o.(T)) }
}

func defaults[T runtime.Object](f func(T)) func(runtime.Object) {
	return func(o runtime.Object) { f(o.(T)) }
}

func typedUpdate[T runtime.Object](f func(obj, old T) field.ErrorList) func(obj, old runtime.Object) field.ErrorList {
	return func(obj, old runtime.Object) field.ErrorList {
		o, ok := old.(T)
		if !ok {
			return nil
		}
		return f(obj.(T), o)
	}
}
