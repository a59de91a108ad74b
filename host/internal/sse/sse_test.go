package sse

import (
	"net/http/httptest"
	"testing"
)

// Every line of a payload is a data line, whatever ends it, so that no
// payload can end its frame early or forge a field of the next.
func TestFramesSplitDataAtEveryLineEnd(t *testing.T) {
	w := httptest.NewRecorder()
	s := Start(w)
	s.Comment("hello")
	s.Event("e", []byte("one\r\ntwo\rthree\nevent: forged"))
	s.Event("", []byte(""))
	s.Flush()
	want := ": hello\n\nevent: e\ndata: one\ndata: two\ndata: three\ndata: event: forged\n\ndata: \n\n"
	if got := w.Body.String(); got != want {
		t.Errorf("stream %q, want %q", got, want)
	}
	for name, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := w.Header().Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
