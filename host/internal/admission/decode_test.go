package admission

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kube32/kube32/host/internal/kinds"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Decode reads JSON, YAML and protobuf, with or without parameters, and
// refuses any other media type with ErrUnsupportedMediaType.
func TestDecodeMediaTypes(t *testing.T) {
	var pb bytes.Buffer
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	if err := kinds.Protobuf.Encode(pod, &pb); err != nil {
		t.Fatal(err)
	}
	for contentType, body := range map[string]string{
		"":                                    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}}`,
		"application/json; charset=utf-8":     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}}`,
		"application/yaml":                    "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n",
		"application/vnd.kubernetes.protobuf": pb.String(),
	} {
		obj, strictErr, err := Decode(contentType, []byte(body))
		if err != nil || strictErr != nil {
			t.Errorf("Decode(%q): %v, %v", contentType, strictErr, err)
			continue
		}
		if p, ok := obj.(*corev1.Pod); !ok || p.Name != "web" {
			t.Errorf("Decode(%q) = %#v", contentType, obj)
		}
	}
	for _, contentType := range []string{"text/html", "text/plain; charset=utf-8", "application/cbor", "not a media type;;"} {
		if _, _, err := Decode(contentType, []byte(`{"apiVersion":"v1","kind":"Pod"}`)); !errors.Is(err, ErrUnsupportedMediaType) {
			t.Errorf("Decode(%q) = %v, want ErrUnsupportedMediaType", contentType, err)
		}
	}
}

// An unknown field decodes, reported apart so that the API can honour
// fieldValidation; a manifest treats it as an error.
func TestDecodeReportsUnknownFieldsApart(t *testing.T) {
	obj, strictErr, err := Decode("application/yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {contaners: []}\n"))
	if err != nil || obj == nil || strictErr == nil || strictErr.Error() != `unknown field "spec.contaners"` {
		t.Fatalf("Decode = %v, %v, %v", obj, strictErr, err)
	}
}

// Issue 19, item 3: a body with a key twice is a strict decoding error, as
// kube-apiserver's strict decoder reports it, whether JSON (the JSON
// decoder's "duplicate field") or YAML (the YAML parser's "already set"),
// rather than the last value winning unseen.
func TestDecodeReportsDuplicateFields(t *testing.T) {
	for _, tc := range []struct{ contentType, body, want string }{
		{"application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}`, `duplicate field "metadata.name"`},
		{"", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"x","image":"y"}]}}`, `duplicate field "spec.containers[0].image"`},
		{"application/yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n", `line 5: key "name" already set in map`},
	} {
		obj, strictErr, err := Decode(tc.contentType, []byte(tc.body))
		if err != nil || obj == nil || strictErr == nil || !strings.Contains(strictErr.Error(), tc.want) {
			t.Errorf("Decode(%q, %s) = %v, strict %v, %v; want a strict error saying %s", tc.contentType, tc.body, obj, strictErr, err, tc.want)
		}
	}
}
