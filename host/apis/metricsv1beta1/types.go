// Package metricsv1beta1 holds the metrics.k8s.io/v1beta1 objects that
// `kubectl top` reads (PodMetrics, NodeMetrics), with the JSON of
// k8s.io/metrics, and NodeStats, what a node answers on abi.NodeStatsPath.
package metricsv1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// GroupVersion is metrics.k8s.io/v1beta1.
const GroupVersion = "metrics.k8s.io/v1beta1"

// NodeMetrics is a node's usage: CPU averaged over Window, which ends at
// Timestamp, and memory at Timestamp.
type NodeMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Timestamp         metav1.Time         `json:"timestamp"`
	Window            metav1.Duration     `json:"window"`
	Usage             corev1.ResourceList `json:"usage"`
}

// PodMetrics is a pod's usage, per container.
type PodMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Timestamp         metav1.Time        `json:"timestamp"`
	Window            metav1.Duration    `json:"window"`
	Containers        []ContainerMetrics `json:"containers"`
}

// ContainerMetrics is one container's usage.
type ContainerMetrics struct {
	Name  string              `json:"name"`
	Usage corev1.ResourceList `json:"usage"`
}

// NodeStats is a node's answer on abi.NodeStatsPath: its own usage and its
// pods', each PodMetrics named by namespace and name only (the API server
// adds the Pod's labels), with the pod's board time in the annotation
// abi.AnnotationBoardTime (BoardTime).
type NodeStats struct {
	Node NodeMetrics  `json:"node"`
	Pods []PodMetrics `json:"pods"`
}

// DeepCopyObject makes NodeMetrics a runtime.Object.
func (m *NodeMetrics) DeepCopyObject() runtime.Object {
	out := *m
	m.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	m.Timestamp.DeepCopyInto(&out.Timestamp)
	out.Usage = m.Usage.DeepCopy()
	return &out
}

// DeepCopyObject makes PodMetrics a runtime.Object.
func (m *PodMetrics) DeepCopyObject() runtime.Object {
	out := *m
	m.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	m.Timestamp.DeepCopyInto(&out.Timestamp)
	out.Containers = make([]ContainerMetrics, len(m.Containers))
	for i, c := range m.Containers {
		out.Containers[i] = ContainerMetrics{Name: c.Name, Usage: c.Usage.DeepCopy()}
	}
	return &out
}
