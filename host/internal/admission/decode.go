package admission

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"

	"github.com/kube32/kube32/host/internal/kinds"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// mediaTypes are the media types Decode reads, as kube-apiserver names them.
var mediaTypes = []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML, runtime.ContentTypeProtobuf}

// ErrUnsupportedMediaType is Decode's error for a body of any other media
// type; its message is kube-apiserver's.
var ErrUnsupportedMediaType = errors.New("the body of the request was in an unknown format - accepted media types include: " +
	strings.Join(mediaTypes, ", "))

// Decode decodes one object of any kind of kinds.Scheme from data, sent as
// contentType (JSON when empty, as a manifest's documents are). JSON and
// YAML go through the strict decoder: a body that decodes but has unknown
// or duplicate fields returns the object together with strictErr, so the
// caller decides whether that fails (the API's fieldValidation=Strict, or
// a manifest), warns or passes. err is a body that does not decode at all,
// or ErrUnsupportedMediaType.
func Decode(contentType string, data []byte) (obj runtime.Object, strictErr, err error) {
	mediaType := runtime.ContentTypeJSON
	if contentType != "" {
		if mediaType, _, err = mime.ParseMediaType(contentType); err != nil {
			return nil, nil, fmt.Errorf("%w (Content-Type %q)", ErrUnsupportedMediaType, contentType)
		}
	}
	switch mediaType {
	case runtime.ContentTypeProtobuf:
		obj, _, err = kinds.Protobuf.Decode(data, nil, nil)
		return obj, nil, err
	case runtime.ContentTypeJSON, runtime.ContentTypeYAML:
	default:
		return nil, nil, fmt.Errorf("%w (Content-Type %q)", ErrUnsupportedMediaType, contentType)
	}
	js, yamlStrictErr, err := toJSON(mediaType, data)
	if err != nil {
		return nil, nil, err
	}
	obj, _, err = strictDecoder.Decode(js, nil, nil)
	if strict, ok := runtime.AsStrictDecodingError(err); ok && obj != nil {
		var all StrictErrors
		if yamlStrictErr != nil {
			all = append(all, yamlStrictErr)
		}
		for _, e := range strict.Errors() {
			all = append(all, errors.New(cleanDecodeError(e)))
		}
		return obj, all, nil
	}
	if err == nil && yamlStrictErr != nil {
		return obj, StrictErrors{yamlStrictErr}, nil
	}
	if err != nil {
		if path, value, ok := findBadQuantity(js); ok {
			return nil, nil, fmt.Errorf("%s: %q: %s", path, value, cleanDecodeError(err))
		}
		return nil, nil, errors.New(cleanDecodeError(err))
	}
	return obj, nil, nil
}

// StrictErrors are the unknown and duplicate fields of a body, each its
// own error: the API sends one Warning header per field, as kube-apiserver
// does, and prints them together, comma-separated.
type StrictErrors []error

func (e StrictErrors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, ", ")
}

// Unwrap returns each field's error.
func (e StrictErrors) Unwrap() []error { return e }

// toJSON is data as JSON for the strict decoder. A JSON body goes as it
// is, so that the JSON decoder sees a key given twice (`duplicate field
// "metadata.name"`); YAML (or YAML sent as JSON) is converted, which keeps
// the last of duplicate keys, so it is first parsed strictly and what that
// finds comes back as strictErr, as kube-apiserver's YAML decoder reports it.
func toJSON(mediaType string, data []byte) (js []byte, strictErr, err error) {
	if mediaType == runtime.ContentTypeJSON && json.Valid(data) {
		return data, nil, nil
	}
	js, err = yaml.YAMLToJSON(data)
	if err != nil {
		return nil, nil, err
	}
	if _, err := yaml.YAMLToJSONStrict(data); err != nil {
		msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
		strictErr = errors.New(strings.ReplaceAll(msg, "\n  ", " ")) // one line, for a Warning header
	}
	return js, strictErr, nil
}

// cleanDecodeError turns apimachinery's decode errors into "field: problem".
func cleanDecodeError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "strict decoding error: ")
	// encoding/json style: "json: cannot unmarshal string into Go struct field Container.spec.containers.ports of type []v1.ContainerPort"
	if i := strings.Index(msg, "Go struct field "); i >= 0 {
		rest := msg[i+len("Go struct field "):]
		if dot := strings.Index(rest, "."); dot >= 0 {
			rest = rest[dot+1:]
		}
		if sp := strings.Index(rest, " of type "); sp >= 0 {
			return rest[:sp] + ": wrong type, want " + rest[sp+len(" of type "):]
		}
	}
	return msg
}
