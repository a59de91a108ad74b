package store

import (
	"fmt"
	"math"
	"sync"
)

// history keeps the last limit events in a ring, for watches that resume
// from a resourceVersion. Every change makes one event, so the kept events
// have consecutive versions.
type history struct {
	limit  int
	events []Event
	next   int // where the next event goes once the ring is full
}

func (h *history) add(e Event) {
	switch {
	case h.limit <= 0:
	case len(h.events) < h.limit:
		h.events = append(h.events, e)
	default:
		h.events[h.next] = e
		h.next = (h.next + 1) % h.limit
	}
}

// since returns the events after version, or ErrGone when some of them are
// no longer kept.
func (h *history) since(version, current int64) ([]Event, error) {
	if version >= current {
		return nil, nil
	}
	oldest := current - int64(len(h.events)) + 1
	if len(h.events) == 0 || version+1 < oldest {
		return nil, fmt.Errorf("resourceVersion %d: %w (the oldest kept is %d)", version, ErrGone, oldest-1)
	}
	out := make([]Event, 0, current-version)
	for i := int64(0); i < int64(len(h.events)); i++ {
		e := h.events[(int64(h.next)+i)%int64(len(h.events))]
		if e.Version > version {
			out = append(out, e)
		}
	}
	return out, nil
}

// Subscribe returns a channel of every change from now on, in order, and a
// function that ends the subscription. The store never waits for a slow
// subscriber: events queue up for it instead.
func (s *Store) Subscribe() (<-chan Event, func()) {
	events, cancel, _ := s.Watch(math.MaxInt64) // nothing to replay, so it cannot fail
	return events, cancel
}

// Watch returns every change after resourceVersion version, in order, then
// every change from now on, until the returned function is called. A
// version older than the kept history fails with ErrGone.
func (s *Store) Watch(version int64) (<-chan Event, func(), error) {
	s.mu.Lock()
	backlog, err := s.history.since(version, s.version)
	if err != nil {
		s.mu.Unlock()
		return nil, nil, err
	}
	sub := newSubscriber()
	for _, e := range backlog {
		sub.push(e)
	}
	id := s.nextSub
	s.nextSub++
	s.subscribers[id] = sub
	s.mu.Unlock()
	var once sync.Once
	return sub.out, func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.subscribers, id)
			s.mu.Unlock()
			sub.close()
		})
	}, nil
}

// notify runs with s.mu held; every subscriber gets its own copy.
func (s *Store) notify(e Event) {
	s.published.Store(e.Version)
	s.history.add(Event{Type: e.Type, Key: e.Key, Object: e.Object.DeepCopyObject(), Version: e.Version})
	for _, sub := range s.subscribers {
		sub.push(Event{Type: e.Type, Key: e.Key, Object: e.Object.DeepCopyObject(), Version: e.Version})
	}
}
