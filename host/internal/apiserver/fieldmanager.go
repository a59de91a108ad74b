package apiserver

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/kinds"
)

// Every write records in metadata.managedFields which manager set which
// fields, as kube-apiserver does, with the same libraries: apimachinery's
// managedfields over structured-merge-diff. The built-in kinds merge by the
// structured schema client-go ships for them (ssaschema.go); kube32's own
// kinds have no schema and merge as kube-apiserver merges a CRD without one
// (maps field by field, lists whole).

// fieldManagerKey names the field manager of a kind's resource or its
// status subresource.
type fieldManagerKey struct {
	kind, subresource string
}

var fieldManagers = sync.OnceValues(newFieldManagers)

func newFieldManagers() (map[fieldManagerKey]*managedfields.FieldManager, error) {
	builtIn, err := builtInTypeConverter()
	if err != nil {
		return nil, err
	}
	deduced := managedfields.NewDeducedTypeConverter()
	out := map[fieldManagerKey]*managedfields.FieldManager{}
	for _, res := range resources {
		if res.Computed {
			continue
		}
		gvk := res.gv().WithKind(res.Kind)
		newManager := managedfields.NewDefaultFieldManager
		converter := builtIn
		if res.Group == kube32v1.GroupName {
			newManager, converter = managedfields.NewDefaultCRDFieldManager, deduced
		}
		subresources := []string{""}
		if res.Status {
			subresources = append(subresources, "status")
		}
		for _, sub := range subresources {
			m, err := newManager(converter, kinds.Scheme, kinds.Scheme, kinds.Scheme, gvk, res.gv(), sub, resetFields(res, sub))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", res.Kind, err)
			}
			out[fieldManagerKey{res.Kind, sub}] = m
		}
	}
	return out, nil
}

// resetFields are the fields a write through the resource or subresource
// cannot change (replace keeps them), so no manager comes to own them
// there: the status through the resource, all but the status through the
// status subresource.
func resetFields(res *resource, subresource string) map[fieldpath.APIVersion]fieldpath.Filter {
	if !res.Status {
		return nil
	}
	filter := fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie("status")))
	if subresource == "status" {
		filter = fieldpath.NewIncludeMatcherFilter(fieldpath.MakePrefixMatcherOrDie("status"))
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{fieldpath.APIVersion(res.apiVersion()): filter}
}

// fieldManager is the field manager of req's resource or subresource.
func fieldManager(req request) (*managedfields.FieldManager, error) {
	all, err := fieldManagers()
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	m, ok := all[fieldManagerKey{req.res.Kind, req.subresource}]
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("no field manager for %s %s", req.res.Kind, req.subresource))
	}
	return m, nil
}

// recordUpdate sets obj's managedFields after a create, update or
// non-apply patch that turned live into obj: the manager comes to own the
// fields it changed (an Update operation). A failure keeps live's
// managedFields, as kube-apiserver does.
func recordUpdate(req request, manager string, live, obj runtime.Object) (runtime.Object, error) {
	m, err := fieldManager(req)
	if err != nil {
		return nil, err
	}
	return m.UpdateNoErrors(live, obj, manager), nil
}

// ServeManager is the field manager of what `kube32 serve` writes from its
// manifests (-f, a project's, and --watch's re-applies), so that a later
// `kubectl apply --server-side` by the user finds the fields owned and
// shares them, rather than taking every field over as kubectl does with
// an object no manager owns (docs/kubectl.md, "Server-side apply").
const ServeManager = "kube32-serve"

// RecordServeWrite sets obj's managedFields for a write by serve (an
// Update operation, as the client-side `kubectl apply` it mirrors): live
// is the stored object obj replaces, nil for a create.
func RecordServeWrite(live, obj runtime.Object) (runtime.Object, error) {
	meta, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	res := byKind(obj.GetObjectKind().GroupVersionKind().Kind)
	if res == nil || res.Computed {
		return nil, fmt.Errorf("%s: not a kind the API writes", obj.GetObjectKind().GroupVersionKind().Kind)
	}
	req := request{res: res, namespace: meta.GetNamespace(), name: meta.GetName()}
	if live == nil {
		var err error
		if live, err = newObject(req, meta.GetName()); err != nil {
			return nil, err
		}
	}
	return recordUpdate(req, ServeManager, live, obj)
}

// newObject is an empty object of req's kind named as the URL names it:
// the live object of a create.
func newObject(req request, name string) (runtime.Object, error) {
	obj, err := kinds.Scheme.New(req.res.gv().WithKind(req.res.Kind))
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	meta := obj.(metav1.Object)
	meta.SetName(name)
	meta.SetNamespace(req.namespace)
	return obj, nil
}

// managerName is the request's field manager: the fieldManager parameter,
// or else the User-Agent up to its first "/" (kubectl's "kubectl/v1.32…"
// is "kubectl"), as kube-apiserver names it. A fieldManager that is not
// printable or longer than 128 bytes is a 422 on the verb's options.
func managerName(r *http.Request) (string, error) {
	optionsKind := optionsKindOf(r)
	if name := r.URL.Query().Get("fieldManager"); name != "" {
		if len(name) > 128 {
			return "", invalidOptions(optionsKind, field.TooLongMaxLength(field.NewPath("fieldManager"), len(name), 128))
		}
		for _, c := range name {
			if !unicode.IsPrint(c) {
				return "", invalidOptions(optionsKind, field.Invalid(field.NewPath("fieldManager"), name, "must only contain printable characters"))
			}
		}
		return name, nil
	}
	var buf bytes.Buffer
	for _, c := range strings.Split(r.UserAgent(), "/")[0] {
		if !unicode.IsPrint(c) {
			continue
		}
		if buf.Len()+utf8.RuneLen(c) > 128 {
			break
		}
		buf.WriteRune(c)
	}
	return buf.String(), nil
}

// optionsKindOf names the options kind of a write, for its 422s.
func optionsKindOf(r *http.Request) string {
	switch r.Method {
	case http.MethodPost:
		return "CreateOptions"
	case http.MethodPatch:
		return "PatchOptions"
	}
	return "UpdateOptions"
}

// invalidOptions is kube-apiserver's 422 for bad request options, e.g.
// `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value`.
func invalidOptions(kind string, errs ...*field.Error) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}
