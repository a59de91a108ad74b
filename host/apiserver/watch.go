package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/store"
)

// serveWatch streams a resource's changes as newline-delimited
// metav1.WatchEvents. With no resourceVersion (or "0", or
// sendInitialEvents=true) it starts with an ADDED event for every object
// that exists; with one it resumes after it, or answers 410 Gone when the
// store no longer keeps the events since. An object that starts or stops
// matching the selectors comes as ADDED or DELETED, as in Kubernetes.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, req request) error {
	if req.res.Computed {
		return methodNotAllowed(req.res, "watch")
	}
	match, err := selectorsOf(r, req.res)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	rv := q.Get("resourceVersion")
	sendInitial := q.Get("sendInitialEvents") == "true"
	known := map[store.Key]bool{}
	var initial []runtime.Object
	var events <-chan store.Event
	var cancel func()
	objs, version := s.cfg.Store.ListShared(req.res.Kind, req.namespace) // only encoded
	for _, o := range objs {
		if match(o) {
			known[store.KeyOf(o)] = true
			initial = append(initial, o)
		}
	}
	if rv == "" || rv == "0" || sendInitial {
		events, cancel, err = s.cfg.Store.Watch(version)
	} else {
		from, perr := strconv.ParseInt(rv, 10, 64)
		if perr != nil {
			return badRequest("resourceVersion %q: not a resourceVersion of this server", rv)
		}
		initial = nil
		events, cancel, err = s.cfg.Store.Watch(from)
	}
	if err != nil {
		return storeError(req.res, "", err)
	}
	defer cancel()

	var timeout <-chan time.Time
	if t := q.Get("timeoutSeconds"); t != "" {
		if secs, err := strconv.Atoi(t); err == nil && secs > 0 {
			timer := time.NewTimer(time.Duration(secs) * time.Second)
			defer timer.Stop()
			timeout = timer.C
		}
	}
	ew := &eventWriter{w: w, res: req.res, table: wantsTable(r), include: includeObject(r)}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	for _, o := range initial {
		if ew.write("ADDED", o) != nil {
			return nil
		}
	}
	if sendInitial {
		if ew.bookmark(req.res, version, true) != nil {
			return nil
		}
	}
	ew.flush()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-timeout:
			return nil
		case e, ok := <-events:
			if !ok {
				return nil
			}
			if e.Key.Kind != req.res.Kind || (req.namespace != "" && e.Key.Namespace != req.namespace) {
				continue
			}
			typ := filterEvent(e, match(e.Object), known)
			if typ == "" {
				continue
			}
			if ew.write(typ, e.Object) != nil {
				return nil
			}
			ew.flush()
		}
	}
}

// filterEvent turns a store event into the watch event a selector-filtered
// watch sends, or "" for none, keeping known (the keys the client sees) up
// to date.
func filterEvent(e store.Event, matches bool, known map[store.Key]bool) string {
	seen := known[e.Key]
	switch {
	case e.Type == store.Deleted:
		delete(known, e.Key)
		if seen || matches {
			return "DELETED"
		}
	case matches:
		known[e.Key] = true
		if seen {
			return "MODIFIED"
		}
		return "ADDED"
	case seen:
		delete(known, e.Key)
		return "DELETED"
	}
	return ""
}

// eventWriter encodes watch events, as Tables when the client asked so
// (column definitions in the first event only, as kube-apiserver sends
// them).
type eventWriter struct {
	w       http.ResponseWriter
	res     *resource
	table   bool
	include string
	sent    bool
}

func (ew *eventWriter) write(typ string, obj runtime.Object) error {
	var raw []byte
	var err error
	if ew.table && typ != "BOOKMARK" {
		t := toTable(ew.res, []runtime.Object{obj}, 0, ew.include, true)
		if ew.sent {
			t.ColumnDefinitions = nil
		}
		raw, err = json.Marshal(t)
	} else {
		raw, err = json.Marshal(obj)
	}
	if err != nil {
		return err
	}
	ew.sent = true
	line, err := json.Marshal(&metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: raw}})
	if err != nil {
		return err
	}
	if _, err := ew.w.Write(append(line, '\n')); err != nil {
		return errors.New("client gone")
	}
	return nil
}

// bookmark sends a BOOKMARK at version; initialEnd marks the end of the
// initial events of a sendInitialEvents watch.
func (ew *eventWriter) bookmark(res *resource, version int64, initialEnd bool) error {
	obj := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: res.Kind, APIVersion: res.apiVersion()},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.FormatInt(version, 10)},
	}
	if initialEnd {
		obj.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return ew.write("BOOKMARK", obj)
}

func (ew *eventWriter) flush() {
	if f, ok := ew.w.(http.Flusher); ok {
		f.Flush()
	}
}
