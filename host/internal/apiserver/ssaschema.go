package apiserver

import (
	_ "embed"
	"fmt"

	"github.com/kube32/kube32/host/internal/kinds"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// ssaSchema is the structured schema of the built-in kinds kube32 serves
// and of the types their fields use: client-go's schema of every
// Kubernetes type, cut down to those, so that the binary does not carry
// all of Kubernetes' API groups for server-side apply. ssaschema_test.go
// fails when it differs from what client-go's schema gives.
//
//go:generate go test -run TestSSASchemaIsCurrent -update-ssa-schema
//go:embed ssaschema.yaml
var ssaSchema string

// builtInTypeConverter is the type converter of the built-in kinds, over
// ssaSchema.
func builtInTypeConverter() (managedfields.TypeConverter, error) {
	parser, err := typed.NewParser(typed.YAMLObject(ssaSchema))
	if err != nil {
		return nil, fmt.Errorf("ssaschema.yaml: %w", err)
	}
	return managedfields.NewSchemeTypeConverter(kinds.Scheme, parser), nil
}
