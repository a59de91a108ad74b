package admission

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/metricsv1beta1"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// Sources are what the computed kinds are made of on each read (Compute).
type Sources struct {
	Store *store.Store
	// NodeStats asks every node for its stats; a node that does not
	// answer has none (the Metrics API, docs/kubectl.md).
	NodeStats func() []metricsv1beta1.NodeStats
}

// computeEndpoints is the Endpoints of namespace ("" for all) as
// host/internal/service computes them from the store at version.
func computeEndpoints(src Sources, namespace string, version int64) []runtime.Object {
	return atVersion(service.NamespaceEndpoints(src.Store, namespace), version)
}

// computeEndpointSlices is the EndpointSlices of namespace, the same way.
func computeEndpointSlices(src Sources, namespace string, version int64) []runtime.Object {
	return atVersion(service.NamespaceEndpointSlices(src.Store, namespace), version)
}

// atVersion stamps computed objects with the store's version they were
// computed at.
func atVersion[T interface {
	runtime.Object
	metav1.Object
}](objs []T, version int64) []runtime.Object {
	var out []runtime.Object
	for _, o := range objs {
		o.SetResourceVersion(strconv.FormatInt(version, 10))
		out = append(out, o)
	}
	return out
}

// computeNodeMetrics is every answering node's NodeMetrics, with its
// Node's labels, as metrics-server serves them.
func computeNodeMetrics(src Sources, _ string, _ int64) []runtime.Object {
	var out []runtime.Object
	for _, st := range src.NodeStats() {
		o, ok := src.Store.Get(store.Key{Kind: kinds.Node, Name: st.Node.Name})
		if !ok {
			continue
		}
		m := st.Node
		m.TypeMeta = metav1.TypeMeta{Kind: kinds.NodeMetrics, APIVersion: metricsv1beta1.GroupVersion}
		m.Labels = o.(*corev1.Node).Labels
		m.CreationTimestamp = metav1.Now()
		out = append(out, &m)
	}
	return out
}

// computePodMetrics is the PodMetrics of namespace ("" for all) that their
// Pods' nodes report, with the Pods' labels and the board time their nodes
// give (abi.AnnotationBoardTime, for the web view): a pod the store no
// longer binds to the node that reports it is left out.
func computePodMetrics(src Sources, namespace string, _ int64) []runtime.Object {
	var out []runtime.Object
	for _, st := range src.NodeStats() {
		for _, m := range st.Pods {
			if namespace != "" && m.Namespace != namespace {
				continue
			}
			o, ok := src.Store.Get(store.Key{Kind: kinds.Pod, Namespace: m.Namespace, Name: m.Name})
			if !ok || o.(*corev1.Pod).Spec.NodeName != st.Node.Name {
				continue
			}
			m.TypeMeta = metav1.TypeMeta{Kind: kinds.PodMetrics, APIVersion: metricsv1beta1.GroupVersion}
			m.Labels = o.(*corev1.Pod).Labels
			m.Annotations = boardTimeOnly(m.Annotations)
			m.CreationTimestamp = metav1.Now()
			out = append(out, &m)
		}
	}
	return out
}

// boardTimeOnly keeps of a node's annotations on a PodMetrics the one the
// Metrics API passes on, abi.AnnotationBoardTime.
func boardTimeOnly(annotations map[string]string) map[string]string {
	v, ok := annotations[abi.AnnotationBoardTime]
	if !ok {
		return nil
	}
	return map[string]string{abi.AnnotationBoardTime: v}
}
