// Package manifest reads Kubernetes manifests (multi-document YAML or
// JSON) and admits each object through host/internal/admission, as the API server
// admits a write, with errors that name the file, the document, the object
// and the field, so a person can fix the manifest at once.
package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kube32/kube32/host/internal/admission"
)

// servedKinds are the kinds a manifest may hold (Strategy.Manifest), and
// whether each is namespaced, as their strategies say.
var servedKinds = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range admission.Strategies {
		if s.Manifest {
			m[s.Kind] = s.Namespaced
		}
	}
	return m
}()

// Object is one decoded object of a manifest file.
type Object struct {
	File string         // the file's path as given
	Doc  int            // 1-based index of the document in the file
	Obj  runtime.Object // *corev1.Pod, *corev1.Service, *networkingv1.Ingress, …
	// Warnings say what of the object kube32 accepts and does not do, as
	// the API's Warning headers say it (admission.Warnings).
	Warnings []string
}

// Warnings lists the warnings of objs, each naming the file, the document
// and the object as errors do: "app.yaml: document 3 (NetworkPolicy
// default/web): spec.ingress: …". `kube32 serve -f` and `kube32 build`
// print them.
func Warnings(objs []Object) []string {
	var out []string
	for _, o := range objs {
		m := o.Meta()
		who := describe(o.Kind(), m.GetNamespace(), m.GetName())
		for _, w := range o.Warnings {
			out = append(out, fmt.Sprintf("%s: document %d%s: %s", o.File, o.Doc, who, w))
		}
	}
	return out
}

// Kind is the object's kind, e.g. "Pod".
func (o Object) Kind() string { return o.Obj.GetObjectKind().GroupVersionKind().Kind }

// Meta is the object's metadata.
func (o Object) Meta() metav1.Object {
	m, _ := o.Obj.(metav1.Object) // every served kind has ObjectMeta
	return m
}

// Key names the object for people: "Pod default/echo", "Namespace shop".
func (o Object) Key() string {
	m := o.Meta()
	if m.GetNamespace() == "" {
		return o.Kind() + " " + m.GetName()
	}
	return o.Kind() + " " + m.GetNamespace() + "/" + m.GetName()
}

// DecodeFile reads a multi-document manifest file.
func DecodeFile(path string) ([]Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

// DecodeFiles reads several manifest files, in order.
func DecodeFiles(paths []string) ([]Object, error) {
	var all []Object
	for _, p := range paths {
		objs, err := DecodeFile(p)
		if err != nil {
			return nil, err
		}
		all = append(all, objs...)
	}
	return all, nil
}

// Decode reads the manifest documents in data; name is used in errors.
// Empty documents are skipped; every error names the file and document.
func Decode(name string, data []byte) ([]Object, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []Object
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, doc, err)
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		obj, err := decodeDocument(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d%s", name, doc, err)
		}
		objs = append(objs, Object{File: name, Doc: doc, Obj: obj, Warnings: admission.Warnings(obj)})
	}
}

// decodeDocument decodes and admits one document, as the API admits a
// write; its errors start with the object's identity, e.g.
// " (Pod default/echo): spec.containers[0].image: …", and name the
// fields as the API's 422 does.
func decodeDocument(raw []byte) (runtime.Object, error) {
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf(": %w", err)
	}
	var head struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(js, &head); err != nil {
		return nil, fmt.Errorf(": %w", err)
	}
	namespaced, served := servedKinds[head.Kind]
	if namespaced && head.Metadata.Namespace == "" {
		head.Metadata.Namespace = metav1.NamespaceDefault
	}
	who := describe(head.Kind, head.Metadata.Namespace, head.Metadata.Name)
	switch {
	case head.APIVersion == "":
		return nil, fmt.Errorf("%s: apiVersion: required", who)
	case head.Kind == "":
		return nil, fmt.Errorf("%s: kind: required", who)
	}
	if !served {
		return nil, fmt.Errorf("%s: kind: %q is not served by kube32 (served: %s)", who, head.Kind, servedKindList())
	}
	obj, strictErr, err := admission.Decode(runtime.ContentTypeYAML, raw) // the YAML as written: a key given twice is an error
	if err == nil {
		err = strictErr // a manifest is read with fieldValidation=Strict
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", who, err)
	}
	meta := obj.(metav1.Object)
	if namespaced && meta.GetNamespace() == "" {
		meta.SetNamespace(metav1.NamespaceDefault)
	}
	who = describe(head.Kind, meta.GetNamespace(), meta.GetName())
	if errs := admission.Admit(obj); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %s", who, errs.ToAggregate().Error())
	}
	return obj, nil
}

func describe(kind, namespace, name string) string {
	if kind == "" {
		kind = "object"
	}
	if name == "" {
		name = "<no name>"
	}
	if namespace != "" {
		name = namespace + "/" + name
	}
	return " (" + kind + " " + name + ")"
}

func stripComments(raw []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(raw, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) {
			continue
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}

func servedKindList() string {
	var names []string
	for k := range servedKinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
