package ingress

import (
	"net/http"
	"sync"
	"time"

	"github.com/kube32/kube32/host/internal/activity"
	svcs "github.com/kube32/kube32/host/internal/service"
)

// recorder follows one request through the controller for the activity
// stream: the route that matched, the pod that answered and the status.
// It is a pass-through http.ResponseWriter; Unwrap keeps flushing and
// hijacking reachable (http.ResponseController).
type recorder struct {
	http.ResponseWriter
	stream *activity.Stream
	start  time.Time
	event  activity.Event
}

var recorders = sync.Pool{New: func() any { return new(recorder) }}

func noop() {}

// record returns the writer the request is served with and the function
// that publishes the request once it is answered; without a stream it is
// w itself and a no-op.
func (c *Controller) record(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	if c.cfg.Activity == nil {
		return w, noop
	}
	rec := recorders.Get().(*recorder)
	*rec = recorder{ResponseWriter: w, stream: c.cfg.Activity, start: time.Now(), event: activity.Event{
		Kind: activity.KindRequest, Method: r.Method, Host: r.Host, Path: r.URL.Path}}
	return rec, rec.finish
}

func (rec *recorder) finish() {
	e := rec.event
	if e.Status == 0 {
		e.Status = http.StatusOK // the handler wrote nothing
	}
	e.Time = rec.start
	e.Duration = float64(time.Since(rec.start).Microseconds()) / 1000
	rec.stream.Publish(e)
	*rec = recorder{}
	recorders.Put(rec)
}

func (rec *recorder) WriteHeader(code int) {
	if rec.event.Status == 0 && code >= 200 {
		rec.event.Status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.event.Status == 0 {
		rec.event.Status = http.StatusOK
	}
	return rec.ResponseWriter.Write(p)
}

// Flush lets the streams and the proxy flush through the recorder.
func (rec *recorder) Flush() {
	if rec.event.Status == 0 {
		rec.event.Status = http.StatusOK
	}
	http.NewResponseController(rec.ResponseWriter).Flush()
}

func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// routeKey names a route in the activity stream as the web view names the
// Ingress rule: "<namespace>/<ingress> <host><path> <pathType>".
func routeKey(rt *route) string {
	return rt.ingress + " " + rt.host + rt.path + " " + string(rt.pathType)
}

// noteRoute tells w's recorder, if any, the route that matched.
func noteRoute(w http.ResponseWriter, rt *route) {
	if rec, ok := w.(*recorder); ok {
		rec.event.Route = routeKey(rt)
	}
}

// noteBackend tells w's recorder, if any, the pod about to answer.
func noteBackend(w http.ResponseWriter, be svcs.Backend) {
	if rec, ok := w.(*recorder); ok {
		rec.event.Pod, rec.event.Node = be.ID(), be.Node
	}
}
