package manifest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// DecodeObject decodes one object sent to the API server (JSON, or YAML)
// with the strict decoder that manifests go through; any kind of Scheme
// decodes, the API server checks it against the URL. A body that decodes
// but has unknown or duplicate fields returns the object together with
// strictErr, so the caller decides per fieldValidation whether that fails
// the request (Strict), warns (Warn) or not (Ignore); err is a body that
// does not decode at all.
func DecodeObject(data []byte) (obj runtime.Object, strictErr, err error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, nil, err
	}
	obj, _, err = strictDecoder.Decode(js, nil, nil)
	if obj != nil && err != nil && runtime.IsStrictDecodingError(err) {
		return obj, fmt.Errorf("%s", cleanDecodeError(err)), nil
	}
	if err != nil {
		if path, value, ok := findBadQuantity(js); ok {
			return nil, nil, fmt.Errorf("%s: %q: %s", path, value, cleanDecodeError(err))
		}
		return nil, nil, fmt.Errorf("%s", cleanDecodeError(err))
	}
	return obj, nil, nil
}

// Validate checks obj the way a manifest's objects are checked; each error
// names its field.
func Validate(obj runtime.Object) field.ErrorList { return validate(obj) }

// ServedKind reports whether kind may be applied, and whether it is
// namespaced.
func ServedKind(kind string) (namespaced, served bool) {
	namespaced, served = servedKinds[kind]
	return namespaced, served
}
