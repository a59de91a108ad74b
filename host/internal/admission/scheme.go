package admission

import (
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kube32/kube32/host/internal/kinds"
)

// Scheme is host/internal/kinds' Scheme, named here for the callers that
// still reach it through admission.
var Scheme = kinds.Scheme

// strictDecoder rejects unknown and duplicate fields, as kubectl's
// server-side field validation does.
var strictDecoder = serializer.NewCodecFactory(kinds.Scheme, serializer.EnableStrict).UniversalDeserializer()

// protobufSerializer decodes the protobuf bodies client-go's typed clients
// send by default; protobuf has no unknown fields to be strict about.
var protobufSerializer = protobuf.NewSerializer(kinds.Scheme, kinds.Scheme)
