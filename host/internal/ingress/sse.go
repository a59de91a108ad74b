package ingress

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/channel"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/sse"
)

// sseQueueLen is the channel queue of one SSE client.
const sseQueueLen = 256

// eventStream is one abi.AnnotationEventStream path of one Ingress: a
// text/event-stream endpoint fed by channel topics and the two built-ins.
type eventStream struct {
	c        *Controller
	ingress  string // "<namespace>/<name>"
	path     string
	topics   []string // channel topics, built-ins left out
	cluster  bool     // abi.TopicCluster is listed
	presence bool     // abi.TopicPresence is listed
	reload   bool     // abi.TopicReload is listed

	mu      sync.Mutex
	clients map[*sseClient]struct{}
	closed  chan struct{}
	once    sync.Once
}

// sseClient is one connected viewer; presence holds the newest viewer
// count it has not sent yet, reload the newest reload event.
type sseClient struct {
	presence chan int
	reload   chan []byte
}

func newEventStream(c *Controller, ingress string, spec streamSpec) *eventStream {
	s := &eventStream{c: c, ingress: ingress, path: spec.path, clients: map[*sseClient]struct{}{}, closed: make(chan struct{})}
	for _, t := range spec.topics {
		switch t {
		case abi.TopicCluster:
			s.cluster = true
		case abi.TopicPresence:
			s.presence = true
		case abi.TopicReload:
			s.reload = true
		default:
			s.topics = append(s.topics, t)
		}
	}
	return s
}

func (s *eventStream) viewers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

// close ends the stream's clients; later requests find it gone.
func (s *eventStream) close() { s.once.Do(func() { close(s.closed) }) }

// join adds a client and tells every client the new viewer count.
func (s *eventStream) join(cl *sseClient) { s.change(cl, true) }

// leave removes a client and tells the others the new viewer count.
func (s *eventStream) leave(cl *sseClient) { s.change(cl, false) }

func (s *eventStream) change(cl *sseClient, join bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if join {
		s.clients[cl] = struct{}{}
	} else {
		delete(s.clients, cl)
	}
	n := len(s.clients)
	s.c.cfg.Activity.Publish(activity.Event{Kind: activity.KindViewers, Stream: s.ingress + " " + s.path,
		Topic: strings.Join(s.topics, ","), Viewers: n})
	if !s.presence {
		return
	}
	for other := range s.clients {
		select { // replace a count the client has not sent yet
		case <-other.presence:
		default:
		}
		other.presence <- n
	}
}

// sendReload hands every client the reload event data, in place of one it
// has not sent yet.
func (s *eventStream) sendReload(data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for cl := range s.clients {
		select {
		case <-cl.reload:
		default:
		}
		cl.reload <- data
	}
}

func (s *eventStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		writeError(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed", "reason": "an event stream answers GET"})
		return
	}
	if _, ok := w.(http.Flusher); !ok {
		writeError(w, http.StatusInternalServerError, map[string]string{"error": "streaming unsupported"})
		return
	}
	select {
	case <-s.closed:
		writeError(w, http.StatusServiceUnavailable, map[string]string{"error": "stream closed", "reason": "the event stream's Ingress changed; try again"})
		return
	default:
	}
	// Anyone may open it: it counts in the public share of the stream
	// class and in its client's (docs/serve.md "Hostile clients").
	if err := httplimit.Stream(r, httplimit.PublicStream); err != nil {
		httplimit.Refuse(w, err)
		return
	}
	var sub *channel.Subscription
	var ready <-chan struct{}
	if hub := s.c.cfg.Channels; hub != nil && len(s.topics) > 0 {
		sub = hub.Subscribe("event stream "+s.ingress+" "+s.path+" ("+r.RemoteAddr+")", s.topics, sseQueueLen)
		defer sub.Close()
		ready = sub.Ready()
	}
	var tick <-chan time.Time
	if s.cluster {
		t := time.NewTicker(abi.ClusterEventInterval)
		defer t.Stop()
		tick = t.C
	}
	stream := sse.Start(w)
	stream.Comment("kube32 event stream " + s.path)
	if s.cluster {
		stream.Event("cluster", s.c.telemetryJSON())
	}
	stream.Flush()

	cl := &sseClient{presence: make(chan int, 1), reload: make(chan []byte, 1)}
	s.join(cl)
	defer s.leave(cl)
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		case <-ready:
			for _, m := range sub.Take() {
				if err = stream.Event(eventName(m.Data), m.Data); err != nil {
					break
				}
			}
		case n := <-cl.presence:
			err = stream.Event("presence", fmt.Appendf(nil, `{"viewers":%d}`, n))
		case data := <-cl.reload:
			err = stream.Event("reload", data)
		case <-tick:
			err = stream.Event("cluster", s.c.telemetryJSON())
		}
		if err != nil || stream.Flush() != nil {
			return
		}
	}
}

// eventName is the SSE event name of a payload: its JSON "type", else its
// "t", when that is a string; "" (no event line) otherwise.
func eventName(data []byte) string {
	var v struct {
		Type any `json:"type"`
		T    any `json:"t"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	for _, name := range []any{v.Type, v.T} {
		if s, ok := name.(string); ok && s != "" && !strings.ContainsAny(s, "\r\n") {
			return s
		}
	}
	return ""
}
