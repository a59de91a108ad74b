package admission

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kube32/kube32/host/apis/kube32v1"
)

// Scheme knows every kind kube32 serves.
var Scheme = newScheme()

// strictDecoder rejects unknown and duplicate fields, as kubectl's
// server-side field validation does.
var strictDecoder = serializer.NewCodecFactory(Scheme, serializer.EnableStrict).UniversalDeserializer()

// protobufSerializer decodes the protobuf bodies client-go's typed clients
// send by default; protobuf has no unknown fields to be strict about.
var protobufSerializer = protobuf.NewSerializer(Scheme, Scheme)

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, networkingv1.AddToScheme, coordinationv1.AddToScheme, kube32v1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // a programming error: the scheme is fixed at compile time
		}
	}
	return s
}
