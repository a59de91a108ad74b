package apptest

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// frame is one Server-Sent Event: its event name ("message" when the
// frame has no event line, as EventSource names it) and data.
type frame struct {
	event, data string
}

// stream is an SSE stream opened before an entry's request, so that no
// event the request causes is missed (docs/testing.md).
type stream struct {
	path   string
	frames chan frame
	seen   []frame // read so far, for the next sse query and for messages
	err    error   // why the stream could not be opened
	cancel context.CancelFunc
}

// openStream opens GET url as an event stream and reads its frames in
// the background until closed.
func openStream(ctx context.Context, client *http.Client, path, url string) *stream {
	ctx, cancel := context.WithCancel(ctx)
	s := &stream{path: path, frames: make(chan frame, 256), cancel: cancel}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		s.err = err
		return s
	}
	req.Header.Set("Accept", "text/event-stream")
	// The stream stays open past requestTimeout, its headers may not.
	timer := time.AfterFunc(requestTimeout, cancel)
	resp, err := client.Do(req)
	timer.Stop()
	if err != nil {
		s.err = err
		return s
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		s.err = fmt.Errorf("answered %s, Content-Type %q, not an event stream", resp.Status, resp.Header.Get("Content-Type"))
		return s
	}
	go func() {
		defer resp.Body.Close()
		defer close(s.frames)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var f frame
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data == nil && f.event == "" {
					continue
				}
				f.data = strings.Join(data, "\n")
				if f.event == "" {
					f.event = "message"
				}
				select {
				case s.frames <- f:
				case <-ctx.Done():
					return
				}
				f, data = frame{}, nil
			case strings.HasPrefix(line, "event:"):
				f.event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
	}()
	return s
}

// next returns the data of the first event named event after the request
// was sent, waiting until deadline.
func (s *stream) next(event string, deadline time.Time) (string, bool, error) {
	if s.err != nil {
		return "", false, fmt.Errorf("stream %s: %v", s.path, s.err)
	}
	for _, f := range s.seen {
		if f.event == event {
			return f.data, true, nil
		}
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		select {
		case f, ok := <-s.frames:
			if !ok {
				return "", false, nil
			}
			s.seen = append(s.seen, f)
			if f.event == event {
				return f.data, true, nil
			}
		case <-timer.C:
			return "", false, nil
		}
	}
}

// names lists the events the stream carried, for a failure's message.
func (s *stream) names() string {
	if len(s.seen) == 0 {
		return "none"
	}
	var names []string
	for _, f := range s.seen {
		names = append(names, f.event)
	}
	return strings.Join(names, ", ")
}

func (s *stream) close() { s.cancel() }
