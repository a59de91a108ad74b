package apiserver

import (
	"bytes"
	"encoding/json"
	"mime"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// withTypeMeta fills in the kind and apiVersion a JSON or YAML body of a
// create or update leaves out, from the resource on the URL, as
// kube-apiserver does (typed clients such as the JavaScript one send
// none), and refuses a body that names another kind or API version with a
// 400 naming both. It returns the content type and body to decode; a body
// that is not a JSON or YAML object goes on unchanged for the decoder to
// report, and protobuf always carries both in its envelope.
func withTypeMeta(contentType string, data []byte, res *resource) (string, []byte, error) {
	if contentType != "" {
		mediaType, _, err := mime.ParseMediaType(contentType)
		if err != nil || (mediaType != runtime.ContentTypeJSON && mediaType != runtime.ContentTypeYAML) {
			return contentType, data, nil
		}
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return contentType, data, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(js, &fields) != nil || fields == nil {
		return contentType, data, nil
	}
	kind, hasKind := stringField(fields, "kind")
	apiVersion, hasAPIVersion := stringField(fields, "apiVersion")
	if hasKind && kind != res.Kind {
		return "", nil, badRequest("the kind in the body (%s) does not match the resource %s (kind %s)", kind, res.Name, res.Kind)
	}
	if hasAPIVersion && apiVersion != res.apiVersion() {
		return "", nil, badRequest("the API version in the data (%s) does not match the expected API version (%s)", apiVersion, res.apiVersion())
	}
	if hasKind && hasAPIVersion {
		return contentType, data, nil
	}
	want := map[string]string{}
	rewrite := false
	for name, value := range map[string]string{"kind": res.Kind, "apiVersion": res.apiVersion()} {
		if _, set := stringField(fields, name); !set {
			want[name] = value
			_, present := fields[name]
			rewrite = rewrite || present
		}
	}
	if rewrite {
		// "kind": "" or null: rewrite the object rather than add a
		// duplicate key (only its duplicate-field warnings are lost).
		for name, value := range want {
			fields[name], _ = json.Marshal(value)
		}
		out, err := json.Marshal(fields)
		return runtime.ContentTypeJSON, out, err
	}
	// Splice the missing fields in front, keeping the body as it was sent
	// so that the strict decoder still sees its duplicate fields
	// (converting YAML keeps only the last of them): a block-style YAML
	// body gets YAML lines, anything else JSON fields.
	if trimmed := bytes.TrimSpace(data); !json.Valid(data) && len(trimmed) > 0 && !bytes.ContainsAny(trimmed[:1], "{-%") {
		var lines []byte
		for _, name := range []string{"kind", "apiVersion"} {
			if value, ok := want[name]; ok {
				lines = append(lines, name+": "+value+"\n"...)
			}
		}
		if out := append(lines, data...); yamlObject(out) {
			return runtime.ContentTypeYAML, out, nil
		}
	}
	head, _ := json.Marshal(want)
	if json.Valid(data) {
		js = data
	}
	rest := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(js), []byte("{")))
	out := head[:len(head)-1]
	if !bytes.HasPrefix(rest, []byte("}")) {
		out = append(out, ',')
	}
	return runtime.ContentTypeJSON, append(out, rest...), nil
}

// stringField is a top-level field of a JSON object that is set: not
// missing, null or "". A value that is not a string counts as set, for
// the decoder to refuse.
func stringField(fields map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" || string(raw) == `""` {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw), true
	}
	return s, true
}

// yamlObject reports whether data is one YAML mapping.
func yamlObject(data []byte) bool {
	js, err := yaml.YAMLToJSON(data)
	var fields map[string]json.RawMessage
	return err == nil && json.Unmarshal(js, &fields) == nil && fields != nil
}
