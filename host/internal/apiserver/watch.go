package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/store"
)

// serveWatch streams a resource's changes as newline-delimited
// metav1.WatchEvents, with kube-apiserver's resourceVersion semantics
// (docs/kubectl.md#watches-and-resourceversions). With no resourceVersion
// (or "0"), or with sendInitialEvents=true, it starts with an ADDED event
// for every object that exists, and for sendInitialEvents with bookmarks
// allowed ends them with a BOOKMARK annotated k8s.io/initial-events-end;
// with a resourceVersion it resumes after it. A resourceVersion older than
// the store's history is an ERROR event with a 410 Expired Status, as
// kube-apiserver sends it. An object that starts or stops matching the
// selectors comes as ADDED or DELETED, as in Kubernetes.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, req request) error {
	if req.res.Computed {
		return methodNotAllowed(req.res, "watch")
	}
	match, err := selectorsOf(r, req.res)
	if err != nil {
		return err
	}
	opts, err := versionOptionsOf(r, true)
	if err != nil {
		return err
	}
	if err := beginStream(w, r); err != nil {
		return err
	}
	q := r.URL.Query()
	objs, current := s.cfg.Store.ListShared(req.res.Kind, req.namespace) // only encoded
	sendInitial := opts.sendInitialEvents != nil && *opts.sendInitialEvents
	withInitial := sendInitial || (opts.sendInitialEvents == nil && opts.anyVersion())
	from := opts.version
	if withInitial || opts.anyVersion() {
		if opts.version > current { // sendInitialEvents: a state not older than the version
			return tooLargeVersion(opts.version, current)
		}
		from = current
	}
	var initial []runtime.Object
	if withInitial {
		for _, o := range objs {
			if match(o) {
				initial = append(initial, o)
			}
		}
	}
	events, cancel, watchErr := s.cfg.Store.Watch(from)
	if watchErr == nil {
		defer cancel()
	}

	var deadline time.Time
	var timeout <-chan time.Time
	if t := q.Get("timeoutSeconds"); t != "" {
		if secs, err := strconv.Atoi(t); err == nil && secs > 0 {
			deadline = time.Now().Add(time.Duration(secs) * time.Second)
			timer := time.NewTimer(time.Until(deadline))
			defer timer.Stop()
			timeout = timer.C
		}
	}
	ew := &eventWriter{s: s, w: w, res: req.res, table: wantsTable(r), include: includeObject(r)}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	if watchErr != nil {
		// kube-apiserver answers an unservable resourceVersion with a
		// stream holding one ERROR event; client-go's reflector relists.
		_ = ew.writeValue("ERROR", toStatus(watchError(req.res, from, current, watchErr)))
		return nil
	}
	for _, o := range initial {
		if ew.write("ADDED", o) != nil {
			return nil
		}
	}
	if sendInitial && opts.bookmarks {
		if ew.bookmark(req.res, current, true) != nil {
			return nil
		}
	}
	ew.flush()

	var bookmarks <-chan time.Time
	bookmarkTimer := time.NewTimer(bookmarkDelay(time.Now(), deadline))
	defer bookmarkTimer.Stop()
	if opts.bookmarks {
		bookmarks = bookmarkTimer.C
	}
	seen := from // the version of the last event this watch has read, of any kind
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-timeout:
			return nil
		case <-bookmarks:
			// Every change up to seen has been read (and sent, if it
			// matched), so a client resuming from it misses nothing.
			if ew.bookmark(req.res, seen, false) != nil {
				return nil
			}
			ew.flush()
			bookmarkTimer.Reset(bookmarkDelay(time.Now(), deadline))
		case e, ok := <-events:
			if !ok {
				return nil
			}
			seen = e.Version
			if e.Key.Kind != req.res.Kind || (req.namespace != "" && e.Key.Namespace != req.namespace) {
				continue
			}
			typ := eventType(e, match)
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

// eventType is the type of the watch event a store event makes for a
// selector-filtered watch, or "" for none: an object that enters the
// selection is ADDED, one that leaves it DELETED.
func eventType(e store.Event, match func(runtime.Object) bool) string {
	now := e.Type != store.Deleted && match(e.Object)
	before := (e.Type == store.Deleted && match(e.Object)) || (e.Previous != nil && match(e.Previous))
	switch {
	case before && now:
		return "MODIFIED"
	case now:
		return "ADDED"
	case before:
		return "DELETED"
	}
	return ""
}

// eventWriter encodes watch events, as Tables when the client asked so
// (column definitions in the first event only, as kube-apiserver sends
// them). An object's JSON comes from the server's encodings, so every
// watcher of a change shares one encoding of it.
type eventWriter struct {
	s       *Server
	w       http.ResponseWriter
	res     *resource
	table   bool
	include string
	sent    bool
	line    []byte // the event being written, reused
}

// write sends obj, one of the store's objects, as an event of typ.
func (ew *eventWriter) write(typ string, obj runtime.Object) error {
	var raw []byte
	var err error
	if ew.table {
		raw, err = ew.s.appendTable(nil, ew.res, []runtime.Object{obj}, 0, tableOptions{include: ew.include, single: true, withColumns: !ew.sent})
	} else {
		raw, err = ew.s.encodings.encode(ew.res.Kind, obj, formObject, true)
	}
	if err != nil {
		return err
	}
	return ew.writeRaw(typ, raw)
}

// writeRaw sends an event of typ whose object is raw JSON, as
// json.Marshal writes a metav1.WatchEvent.
func (ew *eventWriter) writeRaw(typ string, raw []byte) error {
	ew.sent = true
	ew.line = append(ew.line[:0], `{"type":`...)
	ew.line = appendJSONString(ew.line, typ)
	ew.line = append(ew.line, `,"object":`...)
	ew.line = append(ew.line, raw...)
	ew.line = append(ew.line, "}\n"...)
	if _, err := ew.w.Write(ew.line); err != nil {
		return errors.New("client gone")
	}
	return nil
}

// writeValue sends v, which is not a stored object (a bookmark, an error
// Status), as an event of typ.
func (ew *eventWriter) writeValue(typ string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return ew.writeRaw(typ, raw)
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
	return ew.writeValue("BOOKMARK", obj)
}

func (ew *eventWriter) flush() {
	if f, ok := ew.w.(http.Flusher); ok {
		f.Flush()
	}
}
