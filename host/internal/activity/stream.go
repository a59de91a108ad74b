package activity

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultSize is how many events a Stream keeps for a viewer that opens
// the page later.
const DefaultSize = 512

// subscriberQueue is how many events a subscriber may lag behind before
// it loses the newest ones.
const subscriberQueue = 256

// Stream is a bounded ring of recent events and their subscribers. A nil
// *Stream takes every call and records nothing, so hooks need no check.
type Stream struct {
	mu   sync.Mutex
	ring []Event // the last len(ring) events; next is where the next goes
	next int
	full bool
	seq  uint64
	subs map[*Subscription]struct{}
}

// New returns a stream that keeps the last size events (0: DefaultSize).
func New(size int) *Stream {
	if size <= 0 {
		size = DefaultSize
	}
	return &Stream{ring: make([]Event, size), subs: map[*Subscription]struct{}{}}
}

// Publish records e with the next sequence number and the time now (unless
// set) and offers it to every subscriber without waiting: a subscriber
// whose queue is full misses it and counts one more drop.
func (s *Stream) Publish(e Event) {
	if s == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	e.Seq = s.seq
	s.ring[s.next] = e
	s.next++
	if s.next == len(s.ring) {
		s.next, s.full = 0, true
	}
	for sub := range s.subs {
		select {
		case sub.c <- e:
		default:
			sub.dropped.Add(1)
		}
	}
}

// Recent returns the events the ring holds, oldest first.
func (s *Stream) Recent() []Event {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recentLocked()
}

func (s *Stream) recentLocked() []Event {
	if !s.full {
		return append([]Event(nil), s.ring[:s.next]...)
	}
	return append(append([]Event(nil), s.ring[s.next:]...), s.ring[:s.next]...)
}

// Subscribe returns the events the ring holds now and a subscription to
// every later one, with nothing lost or repeated between the two. Close
// the subscription when done.
func (s *Stream) Subscribe() ([]Event, *Subscription) {
	sub := &Subscription{c: make(chan Event, subscriberQueue), stream: s}
	if s == nil {
		return nil, sub
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[sub] = struct{}{}
	return s.recentLocked(), sub
}

// Subscription receives a stream's events as they are published.
type Subscription struct {
	c       chan Event
	dropped atomic.Int64
	stream  *Stream
	once    sync.Once
}

// Events delivers the events in order; it is never closed.
func (sub *Subscription) Events() <-chan Event { return sub.c }

// Dropped counts the events this subscriber missed because its queue was
// full.
func (sub *Subscription) Dropped() int64 { return sub.dropped.Load() }

// Close ends the subscription.
func (sub *Subscription) Close() {
	if sub.stream == nil {
		return
	}
	sub.once.Do(func() {
		sub.stream.mu.Lock()
		delete(sub.stream.subs, sub)
		sub.stream.mu.Unlock()
	})
}

// Message publishes a channel message: who published it, the topic, its
// size and a preview of its data. On a nil stream it costs nothing.
func (s *Stream) Message(from, topic string, data []byte) {
	if s == nil {
		return
	}
	s.Publish(Event{Kind: KindMessage, From: from, Topic: topic, Size: len(data), Preview: Preview(data)})
}
