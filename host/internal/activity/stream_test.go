package activity

import (
	"strconv"
	"testing"
)

// A subscriber that never reads loses events and counts them; Publish
// never waits for it, and the ring keeps the newest DefaultSize events.
func TestSlowSubscriberNeverBlocks(t *testing.T) {
	s := New(0)
	_, slow := s.Subscribe()
	defer slow.Close()
	n := subscriberQueue + DefaultSize + 10
	for i := range n {
		s.Publish(Event{Kind: KindRequest, Path: "/" + strconv.Itoa(i)})
	}
	if got, want := slow.Dropped(), int64(n-subscriberQueue); got != want {
		t.Errorf("dropped %d, want %d", got, want)
	}
	recent := s.Recent()
	if len(recent) != DefaultSize || recent[0].Seq != uint64(n-DefaultSize+1) || recent[len(recent)-1].Path != "/"+strconv.Itoa(n-1) {
		t.Errorf("the ring holds %d events from seq %d to %q", len(recent), recent[0].Seq, recent[len(recent)-1].Path)
	}
	// A new subscriber gets the ring, then what follows, without a gap.
	held, sub := s.Subscribe()
	defer sub.Close()
	s.Publish(Event{Kind: KindMessage, Topic: "t"})
	if e := <-sub.Events(); e.Seq != held[len(held)-1].Seq+1 || e.Topic != "t" {
		t.Errorf("after the ring: %+v", e)
	}
}

func TestNilStreamRecordsNothing(t *testing.T) {
	var s *Stream
	s.Publish(Event{})
	s.Message("a", "b", []byte("c"))
	if s.Recent() != nil {
		t.Error("a nil stream holds events")
	}
}

func TestPreview(t *testing.T) {
	long := make([]byte, 300)
	for i := range long {
		long[i] = 'é' % 128
	}
	for _, c := range []struct{ in, want string }{
		{"hello", "hello"},
		{"\xff\xfe", "(binary)"},
		{string(long), string(long[:previewLen]) + "…"},
	} {
		if got := Preview([]byte(c.in)); got != c.want {
			t.Errorf("Preview(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
