// Package sse writes Server-Sent Events to one client: the Ingress's event
// streams (docs/channels.md) and the web view's activity stream (docs/ui.md)
// alike. Every write has a deadline, so that a client that stops reading
// cannot hold its handler, nor what the handler holds, for ever.
package sse

import (
	"bytes"
	"net/http"
	"strings"
	"time"
)

// WriteTimeout bounds each write to a client.
const WriteTimeout = 10 * time.Second

// Stream is the event stream of one client.
type Stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// Start answers 200 with the headers of an event stream, which nothing in
// between may buffer or cache; the head goes out with the first Flush.
func Start(w http.ResponseWriter) *Stream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &Stream{w: w, rc: http.NewResponseController(w)}
}

// Event writes one frame: an event line when event is set, and one data
// line per line of data (CR, LF and CRLF all end a line in SSE).
func (s *Stream) Event(event string, data []byte) error {
	var b bytes.Buffer
	if event != "" {
		b.WriteString("event: " + event + "\n")
	}
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n"), "\n")
	for _, line := range lines {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	return s.write(b.Bytes())
}

// Comment writes a comment line, which clients ignore: a greeting, or a
// keep-alive that proxies and browsers see as traffic.
func (s *Stream) Comment(text string) error {
	return s.write([]byte(": " + text + "\n\n"))
}

// Flush sends what was written.
func (s *Stream) Flush() error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	return s.rc.Flush()
}

func (s *Stream) write(b []byte) error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	_, err := s.w.Write(b)
	return err
}
