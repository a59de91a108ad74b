package store

import (
	"fmt"
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

// since returns the events after version, ErrGone when some of them are
// no longer kept, or ErrTooNew when version is past current. The errors
// read as kube-apiserver's: "too old resource version: 3 (40)" names the
// oldest version a watch may still resume from.
func (h *history) since(version, current int64) ([]Event, error) {
	switch {
	case version > current:
		return nil, fmt.Errorf("%w: %d, current: %d", ErrTooNew, version, current)
	case version == current:
		return nil, nil
	}
	oldest := current - int64(len(h.events)) + 1
	if len(h.events) == 0 || version+1 < oldest {
		return nil, fmt.Errorf("%w: %d (%d)", ErrGone, version, oldest-1)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscribeLocked(nil)
}

// Watch returns every change after resourceVersion version, in order, then
// every change from now on, until the returned function is called. A
// version older than the kept history fails with ErrGone, one newer than
// the store's with ErrTooNew.
func (s *Store) Watch(version int64) (<-chan Event, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	backlog, err := s.history.since(version, s.version)
	if err != nil {
		return nil, nil, err
	}
	events, cancel := s.subscribeLocked(backlog)
	return events, cancel, nil
}

// subscribeLocked runs with s.mu held: a subscriber that gets backlog first.
func (s *Store) subscribeLocked(backlog []Event) (<-chan Event, func()) {
	sub := newSubscriber()
	for _, e := range backlog {
		sub.push(e)
	}
	id := s.nextSub
	s.nextSub++
	s.subscribers[id] = sub
	var once sync.Once
	return sub.out, func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.subscribers, id)
			s.mu.Unlock()
			sub.close()
		})
	}
}

// notify runs with s.mu held; every subscriber gets its own copy of the
// object (Previous is shared: the store never changes a stored object).
func (s *Store) notify(e Event) {
	s.published.Store(e.Version)
	for _, sub := range s.subscribers {
		c := e
		c.Object = e.Object.DeepCopyObject()
		sub.push(c)
	}
	e.Object = e.Object.DeepCopyObject()
	s.history.add(e)
}
