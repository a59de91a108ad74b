package apiserver

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// selectorsOf parses the labelSelector and fieldSelector of a list or
// watch into one match function; a bad selector is a 400 naming it.
func selectorsOf(r *http.Request, res *resource) (func(runtime.Object) bool, error) {
	q := r.URL.Query()
	ls, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		return nil, badRequest("unable to parse requirement: labelSelector %q: %v", q.Get("labelSelector"), err)
	}
	fs, err := fields.ParseSelector(q.Get("fieldSelector"))
	if err != nil {
		return nil, badRequest("invalid field selector %q: %v", q.Get("fieldSelector"), err)
	}
	for _, req := range fs.Requirements() {
		if !res.Selectable(req.Field) {
			return nil, badRequest("field label not supported: %s", req.Field)
		}
	}
	if ls.Empty() && fs.Empty() {
		return func(runtime.Object) bool { return true }, nil
	}
	return func(o runtime.Object) bool {
		m := o.(metav1.Object)
		return ls.Matches(labels.Set(m.GetLabels())) && (fs.Empty() || fs.Matches(res.FieldSet(o)))
	}, nil
}
