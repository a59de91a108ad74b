package store

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func names(objs []runtime.Object) []string {
	var out []string
	for _, o := range objs {
		m := o.(metav1.Object)
		out = append(out, m.GetNamespace()+"/"+m.GetName())
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Lists hold one kind, sorted by namespace and name, one namespace when
// asked, and stay so as objects come, change and go.
func TestListByKindNamespaceAndName(t *testing.T) {
	s := New()
	for _, ns := range []string{"b", "a", "c"} {
		for _, name := range []string{"y", "x"} {
			s.Apply(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
		}
	}
	s.Apply(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "svc"}})
	want := func(kind, ns string, w ...string) {
		t.Helper()
		if got := names(s.List(kind, ns)); !equal(got, w) {
			t.Errorf("List(%s, %q) = %v, want %v", kind, ns, got, w)
		}
	}
	want("Pod", "", "a/x", "a/y", "b/x", "b/y", "c/x", "c/y")
	want("Pod", "b", "b/x", "b/y")
	want("Pod", "nope")
	want("Service", "", "a/svc")
	want("Node", "")

	s.Update(Key{"Pod", "b", "x"}, func(o runtime.Object) bool { o.(*corev1.Pod).Spec.NodeName = "n"; return true })
	s.Delete(Key{"Pod", "a", "y"})
	s.Apply(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "w"}})
	want("Pod", "", "a/x", "b/w", "b/x", "b/y", "c/x", "c/y")
	want("Pod", "a", "a/x")
	if p := s.List("Pod", "b")[1].(*corev1.Pod); p.Spec.NodeName != "n" {
		t.Errorf("b/x after its update: nodeName %q", p.Spec.NodeName)
	}
	if len(s.List("Pod", "nope")) != 0 || s.List("Pod", "nope") == nil {
		t.Errorf("an empty list is empty, not nil")
	}
}
