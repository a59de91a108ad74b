package ingress

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/abi"
	networkingv1 "k8s.io/api/networking/v1"
)

// annotationState is what the controller keeps across table rebuilds for
// its annotations: the event streams with their viewers, the request
// counts behind abi.AnnotationStatsTopic and the start time for telemetry.
type annotationState struct {
	started time.Time

	mu       sync.Mutex
	streams  map[string]*eventStream  // by streamKey
	requests map[string]*atomic.Int64 // by "<namespace>/<name>", since the last stats tick
}

// streamKey identifies a stream: a changed Ingress (new uid) or a changed
// path or topic list is a new stream, and the old one closes.
func streamKey(ing *networkingv1.Ingress, spec streamSpec) string {
	return ing.Namespace + "/" + ing.Name + "|" + string(ing.UID) + "|" + spec.path + "=" + strings.Join(spec.topics, ",")
}

// stream returns the event stream of spec, creating it on first use.
func (c *Controller) stream(ing *networkingv1.Ingress, spec streamSpec) *eventStream {
	key := streamKey(ing, spec)
	a := &c.ann
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.streams[key]; ok {
		return s
	}
	if a.streams == nil {
		a.streams = map[string]*eventStream{}
	}
	s := newEventStream(c, ing.Namespace+"/"+ing.Name, spec)
	a.streams[key] = s
	return s
}

// retainStreams closes the streams that no routed Ingress defines any
// more: deleting an Ingress (or its annotation) ends its streams' clients.
func (c *Controller) retainStreams(ings []*networkingv1.Ingress) {
	live := map[string]bool{}
	for _, ing := range ings {
		specs, _ := parseEventStreams(ing.Annotations[abi.AnnotationEventStream])
		for _, spec := range specs {
			live[streamKey(ing, spec)] = true
		}
	}
	a := &c.ann
	a.mu.Lock()
	var gone []*eventStream
	for key, s := range a.streams {
		if !live[key] {
			gone = append(gone, s)
			delete(a.streams, key)
		}
	}
	a.mu.Unlock()
	for _, s := range gone {
		s.close()
	}
}

// closeStreams ends every stream (the controller stops).
func (c *Controller) closeStreams() { c.retainStreams(nil) }

// counter is the request counter of Ingress id, made on first use; routes
// count into it without a lock.
func (a *annotationState) counter(id string) *atomic.Int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.requests == nil {
		a.requests = map[string]*atomic.Int64{}
	}
	n := a.requests[id]
	if n == nil {
		n = new(atomic.Int64)
		a.requests[id] = n
	}
	return n
}

// viewers is how many clients the streams of Ingress id have now.
func (a *annotationState) viewers(id string) int {
	a.mu.Lock()
	streams := make([]*eventStream, 0, len(a.streams))
	for _, s := range a.streams {
		if s.ingress == id {
			streams = append(streams, s)
		}
	}
	a.mu.Unlock()
	n := 0
	for _, s := range streams {
		n += s.viewers()
	}
	return n
}
