// Package manifest decodes Kubernetes manifests (multi-document YAML or
// JSON) into typed objects, with errors that name the file, the document,
// the object and the field, so a person can fix the manifest at once.
package manifest

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kube32/kube32/host/apis/kube32v1"
)

// Scheme knows every kind kube32 serves.
var Scheme = newScheme()

// strictDecoder rejects unknown and duplicate fields, as kubectl's
// server-side field validation does.
var strictDecoder = serializer.NewCodecFactory(Scheme, serializer.EnableStrict).UniversalDeserializer()

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, networkingv1.AddToScheme, kube32v1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // a programming error: the scheme is fixed at compile time
		}
	}
	return s
}

// servedKinds are the kinds a manifest may hold, and whether each is namespaced.
var servedKinds = map[string]bool{
	"Namespace":     false,
	"Pod":           true,
	"Service":       true,
	"Ingress":       true,
	"NetworkPolicy": true,
	"StaticBundle":  true,
}
