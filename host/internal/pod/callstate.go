package pod

import (
	"context"
	"net/http"
)

// callState is the state of the callback in progress. It travels in the
// context passed to the export call (callCtx), so host functions find the request of
// their own callback and answer K32_ERR_INVAL outside one.
type callState struct {
	// k32_handle
	req      *http.Request
	w        http.ResponseWriter
	header   http.Header // queued by k32_resp_header until the head is sent
	status   int         // set by k32_resp_status; 0 = 200
	headSent bool
	bodyEOF  bool

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
	h := s.w.Header()
	for name, values := range s.header {
		h[name] = append(h[name], values...)
	}
	s.w.WriteHeader(status)
}
