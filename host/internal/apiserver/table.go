package apiserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/admission"
)

// wantsTable reports whether the client asked for a meta.k8s.io Table, as
// kubectl get does.
func wantsTable(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if strings.Contains(part, "as=Table") && strings.Contains(part, "g=meta.k8s.io") {
			return true
		}
	}
	return false
}

// includeObject is what each row carries: "None", "Object" or by default
// "Metadata".
func includeObject(r *http.Request) string {
	if v := r.URL.Query().Get("includeObject"); v != "" {
		return v
	}
	return "Metadata"
}

// tableOptions is how a Table is printed: the row objects' form
// (includeObject), and whether it is one object's (a get or a watch
// event: the Table's resourceVersion is the object's) and carries the
// column definitions (left out of watch events after the first).
type tableOptions struct {
	include     string
	single      bool
	withColumns bool
}

// appendTable appends objs printed as a Table of res's columns, as
// json.Marshal writes a metav1.Table: cells from each kind's printer, row
// objects from the server's cached encodings.
func (s *Server) appendTable(b []byte, res *resource, objs []runtime.Object, version int64, opts tableOptions) ([]byte, error) {
	p := res.Printer
	b = append(b, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{`...)
	switch {
	case opts.single && len(objs) == 1:
		if rv := objs[0].(metav1.Object).GetResourceVersion(); rv != "" {
			b = append(b, `"resourceVersion":`...)
			b = appendJSONString(b, rv)
		}
	case version > 0:
		b = append(b, `"resourceVersion":"`...)
		b = strconv.AppendInt(b, version, 10)
		b = append(b, '"')
	}
	b = append(b, `},"columnDefinitions":`...)
	if opts.withColumns {
		b = append(b, columnsJSON(res.Kind, p)...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"rows":[`...)
	for i, o := range objs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"cells":[`...)
		for j, cell := range p.Cells(o) {
			if j > 0 {
				b = append(b, ',')
			}
			if str, ok := cell.(string); ok {
				b = appendJSONString(b, str)
				continue
			}
			raw, err := json.Marshal(cell)
			if err != nil {
				return nil, err
			}
			b = append(b, raw...)
		}
		b = append(b, `],"object":`...)
		var raw []byte
		var err error
		switch opts.include {
		case "Object":
			raw, err = s.encodings.encode(res.Kind, o, formObject, !res.Computed)
		case "None":
			raw = []byte("null")
		default:
			raw, err = s.encodings.encode(res.Kind, o, formMetadata, !res.Computed)
		}
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// columns holds each kind's column definitions as JSON, encoded once.
var columns sync.Map // kind → []byte

func columnsJSON(kind string, p admission.Printer) []byte {
	if raw, ok := columns.Load(kind); ok {
		return raw.([]byte)
	}
	raw, _ := json.Marshal(p.Columns)
	columns.Store(kind, raw)
	return raw
}
