// Package kube32v1 holds the kube32.io/v1 API types that kube32 adds to
// Kubernetes: the StaticBundle, a folder of files built into the firmware and
// served by Ingress resource backends.
package kube32v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of kube32's own kinds.
const GroupName = "kube32.io"

// SchemeGroupVersion is kube32.io/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// StaticBundle names a bundle of static files built into the firmware at
// images/web/<name>/. Ingress resource backends serve it.
type StaticBundle struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              StaticBundleSpec `json:"spec,omitempty"`
}

// StaticBundleSpec describes a StaticBundle. The bundle's files come from the
// firmware image (docs/bundles.md, "Layout"), or, under `kube32 serve`,
// from the OCI artifact that Image names (docs/oci.md, "Bundles").
type StaticBundleSpec struct {
	// Description is free text for people.
	Description string `json:"description,omitempty"`
	// Image is an OCI reference (REGISTRY/REPOSITORY[:TAG|@DIGEST]) of a
	// bundle pushed with `kube32 push`; "" serves the bundle from the
	// firmware image.
	Image string `json:"image,omitempty"`
}

// StaticBundleList is a list of StaticBundles.
type StaticBundleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StaticBundle `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (b *StaticBundle) DeepCopyObject() runtime.Object {
	if b == nil {
		return nil
	}
	out := *b
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject implements runtime.Object.
func (l *StaticBundleList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]StaticBundle, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*StaticBundle)
	}
	return &out
}

// AddToScheme registers the kube32.io/v1 kinds.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &StaticBundle{}, &StaticBundleList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
