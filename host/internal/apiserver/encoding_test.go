package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/store"
)

func resourceOf(t *testing.T, kind string) *resource {
	t.Helper()
	for _, r := range resources {
		if r.Kind == kind {
			return r
		}
	}
	t.Fatalf("no resource of kind %s", kind)
	return nil
}

// storedObjects are objects as the store keeps them, with characters
// encoding/json escapes in a label and a cell.
func storedObjects(t *testing.T) (*store.Store, []runtime.Object) {
	t.Helper()
	s := store.New()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	admission.Admit(ns)
	s.Apply(ns)
	for i := 0; i < 3; i++ {
		s.Apply(&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-" + strconv.Itoa(i), Namespace: "default", Labels: map[string]string{"app": "<a & b>"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "wasm://x"}}},
			Status:     corev1.PodStatus{Phase: corev1.PodRunning, Reason: "ünïcode \"quoted\""},
		})
	}
	return s, s.List("Pod", "default")
}

// referenceTable is the Table as a metav1.Table that encoding/json
// encodes, which the written Table must equal byte for byte.
func referenceTable(res *resource, objs []runtime.Object, version int64, opts tableOptions) []byte {
	p := res.Printer
	t := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, Rows: []metav1.TableRow{}}
	if opts.withColumns {
		t.ColumnDefinitions = p.Columns
	}
	if version > 0 {
		t.ResourceVersion = strconv.FormatInt(version, 10)
	}
	for _, o := range objs {
		row := metav1.TableRow{Cells: p.Cells(o)}
		switch opts.include {
		case "Object":
			row.Object.Raw, _ = json.Marshal(o)
		case "None":
		default:
			row.Object.Raw, _ = json.Marshal(&metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
				ObjectMeta: reflect.ValueOf(o).Elem().FieldByName("ObjectMeta").Interface().(metav1.ObjectMeta),
			})
		}
		t.Rows = append(t.Rows, row)
	}
	if opts.single && len(objs) == 1 {
		t.ResourceVersion = objs[0].(metav1.Object).GetResourceVersion()
	}
	raw, _ := json.Marshal(t)
	return raw
}

func TestTablesAreWrittenAsEncodingJSONWritesThem(t *testing.T) {
	st, pods := storedObjects(t)
	s := New(Config{Store: st})
	nss := st.List("Namespace", "")
	for _, c := range []struct {
		kind string
		objs []runtime.Object
	}{{"Pod", pods}, {"Pod", pods[:1]}, {"Pod", nil}, {"Namespace", nss}} {
		res := resourceOf(t, c.kind)
		for _, opts := range []tableOptions{
			{include: "Metadata", withColumns: true}, {include: "Object", withColumns: true}, {include: "None"},
			{include: "Metadata", single: true}, {include: "Object", single: true, withColumns: true},
		} {
			want := referenceTable(res, c.objs, 7, opts)
			for round := 0; round < 2; round++ { // encoded, then cached
				got, err := s.appendTable(nil, res, c.objs, 7, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s Table of %d, %+v, round %d:\n got %s\nwant %s", c.kind, len(c.objs), opts, round, got, want)
				}
			}
		}
	}
}

func TestListsAreWrittenAsEncodingJSONWritesThem(t *testing.T) {
	st, pods := storedObjects(t)
	s := New(Config{Store: st})
	var want bytes.Buffer
	_ = json.NewEncoder(&want).Encode(&struct {
		metav1.TypeMeta `json:",inline"`
		metav1.ListMeta `json:"metadata"`
		Items           []runtime.Object `json:"items"`
	}{metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, metav1.ListMeta{ResourceVersion: "12"}, pods})
	for round := 0; round < 2; round++ {
		got, err := s.appendList(nil, resourceOf(t, "Pod"), pods, 12)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("round %d:\n got %s\nwant %s", round, got, want.Bytes())
		}
	}
}

// A changed object is a new encoding: the cache is keyed by
// resourceVersion, so no list ever sends an object as it was.
func TestAChangedObjectIsEncodedAgain(t *testing.T) {
	st, pods := storedObjects(t)
	s := New(Config{Store: st})
	res := resourceOf(t, "Pod")
	if _, err := s.appendList(nil, res, pods, 1); err != nil {
		t.Fatal(err)
	}
	st.Update(store.KeyOf(pods[0]), func(o runtime.Object) bool {
		o.(*corev1.Pod).Labels["app"] = "changed"
		return true
	})
	now, _ := st.ListShared("Pod", "default")
	got, err := s.appendList(nil, res, now, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`"app":"changed"`)) {
		t.Fatalf("the list has the pod as it was: %s", got)
	}
}

func TestWatchEventsAreWrittenAsEncodingJSONWritesThem(t *testing.T) {
	st, pods := storedObjects(t)
	var buf bufferWriter
	ew := &eventWriter{s: New(Config{Store: st}), w: &buf, res: resourceOf(t, "Pod"), include: "Metadata"}
	for _, typ := range []string{"ADDED", "MODIFIED"} {
		buf.Reset()
		if err := ew.write(typ, pods[1]); err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(pods[1])
		want, _ := json.Marshal(&metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: raw}})
		if got := buf.String(); got != string(want)+"\n" {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	}
}

// bufferWriter is an http.ResponseWriter that keeps the body.
type bufferWriter struct{ bytes.Buffer }

func (*bufferWriter) Header() http.Header { return http.Header{} }
func (*bufferWriter) WriteHeader(int)     {}
