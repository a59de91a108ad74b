package pod

import (
	"context"
	"net/http"
	"net/textproto"

	"github.com/kube32/kube32/abi"
)

// callState is the state of the callback in progress. It travels in the
// context passed to the export call (callCtx), so host functions find the request of
// their own callback and answer K32_ERR_INVAL outside one.
type callState struct {
	// k32_handle
	req      *http.Request
	w        http.ResponseWriter
	header   http.Header // queued by k32_resp_header until the head is sent (respQueue)
	status   int         // set by k32_resp_status; 0 = 200
	queue    *respQueue  // the pod's, whose header is header
	headSent bool
	bodyEOF  bool
	// timing: the head carries the callback's board time so far
	// (abi.HeaderServerTiming), for an answer that goes to a client.
	timing *callCtx

	// headers and headerBytes count what header holds, against
	// abi.RespHeadersMax and abi.RespHeaderBytesMax.
	headers, headerBytes int

	// k32_event
	event            bool
	topic, eventData []byte
}

type callStateKey struct{}

// stateOf returns the callback state in ctx, if any.
func stateOf(ctx context.Context) *callState {
	if c, ok := ctx.(*callCtx); ok { // as invoke passes it
		return c.st
	}
	s, _ := ctx.Value(callStateKey{}).(*callState)
	return s
}

// handleState returns the k32_handle state in ctx, or nil outside k32_handle.
func handleState(ctx context.Context) *callState {
	s := stateOf(ctx)
	if s == nil || s.req == nil {
		return nil
	}
	return s
}

// eventState returns the k32_event state in ctx, or nil outside k32_event.
func eventState(ctx context.Context) *callState {
	s := stateOf(ctx)
	if s == nil || !s.event {
		return nil
	}
	return s
}

// sendHead writes the queued headers and the status (200 when unset), once.
func (s *callState) sendHead(status int) {
	if s.headSent {
		return
	}
	s.headSent = true
	if status == 0 {
		status = s.status
	}
	if status == 0 {
		status = http.StatusOK
	}
	s.addTiming(s.header)
	if n := valueCount(s.header); n > 0 {
		// One backing array for the values of the names the writer does
		// not have yet, rather than one per name.
		backing := make([]string, 0, n)
		h := s.w.Header()
		for name, values := range s.header {
			if len(h[name]) > 0 {
				h[name] = append(h[name], values...)
				continue
			}
			start := len(backing)
			backing = append(backing, values...)
			h[name] = backing[start:len(backing):len(backing)]
		}
	}
	s.w.WriteHeader(status)
}

// addTiming adds to h the board time of the callback so far, for an answer
// that goes to a client (abi.HeaderServerTiming).
func (s *callState) addTiming(h http.Header) {
	if c := s.timing; c != nil && c.meter.model != nil {
		h.Add(abi.HeaderServerTiming, abi.FormatBoardTiming(c.meter.elapsed(), c.pod.cfg.Timing.Board.Name))
	}
}

func valueCount(h http.Header) int {
	n := 0
	for _, values := range h {
		n += len(values)
	}
	return n
}

// queueHeader adds a header to the queue, its name in canonical form as
// http.Header.Add does. A name's first value sits in the pod's respValues
// (respQueue), so that queueing costs no allocation.
func (s *callState) queueHeader(name, value string) {
	key := textproto.CanonicalMIMEHeaderKey(name)
	if old := s.header[key]; len(old) > 0 {
		s.header[key] = append(old, value)
		return
	}
	q := s.queue
	q.values = append(q.values, value)
	n := len(q.values)
	s.header[key] = q.values[n-1 : n : n] // capped: a second value copies it out
}

// respQueue is the pod's reusable queue of response headers, which the
// callback lock guards: a k32_handle callback queues into it, and its
// head is copied to the ResponseWriter (sendHead) before the lock goes.
type respQueue struct {
	header http.Header
	values []string
}

// take readies the queue for a callback.
func (q *respQueue) take() http.Header {
	if q.header == nil {
		q.header = http.Header{}
	}
	return q.header
}

// reset empties the queue after a callback; an unusually large queue is
// dropped rather than kept for good.
func (q *respQueue) reset() {
	if len(q.header) > maxQueuedNames {
		q.header = nil
	} else {
		clear(q.header)
	}
	clear(q.values)
	q.values = q.values[:0]
	if cap(q.values) > maxQueuedNames {
		q.values = nil
	}
}

// maxQueuedNames is the most header names and values the pod's queue keeps
// between callbacks.
const maxQueuedNames = 32
