package admission

import (
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kube32/kube32/host/internal/kinds"
)

// strictDecoder rejects unknown and duplicate fields, as kubectl's
// server-side field validation does.
var strictDecoder = serializer.NewCodecFactory(kinds.Scheme, serializer.EnableStrict).UniversalDeserializer()
