package kinds

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kube32/kube32/host/apis/kube32v1"
)

// Scheme knows the Go type of every kind kube32 stores or decodes.
var Scheme = newScheme()

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, networkingv1.AddToScheme, coordinationv1.AddToScheme, kube32v1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // a programming error: the scheme is fixed at compile time
		}
	}
	return s
}

// Of is the kind of obj, e.g. Pod, or "" for a type the Scheme does not
// know.
func Of(obj runtime.Object) string {
	gvks, _, err := Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return ""
	}
	return gvks[0].Kind
}

// Protobuf decodes and encodes the served kinds in the protobuf that
// client-go's typed clients send by default: one serializer for admission's
// decoder and the API server's DeleteOptions.
var Protobuf = protobuf.NewSerializer(Scheme, Scheme)
