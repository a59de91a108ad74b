package admission

import (
	"bytes"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Decode reads JSON, YAML and protobuf, with or without parameters, and
// refuses any other media type with ErrUnsupportedMediaType.
func TestDecodeMediaTypes(t *testing.T) {
	var pb bytes.Buffer
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	if err := protobufSerializer.Encode(pod, &pb); err != nil {
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
