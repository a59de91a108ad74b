package channel

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errClosed is what Next returns once the subscription is closed.
var errClosed = errors.New("channel subscription closed")

// dropLogInterval spaces the log lines about one subscriber's dropped
// messages, so that a stuck subscriber does not flood the log.
const dropLogInterval = time.Second

// Subscription receives the messages of its topics in publish order. Its
// queue is bounded: when the reader falls behind, the oldest messages are
// dropped and counted in a log line.
type Subscription struct {
	hub    *Hub
	name   string
	topics map[string]bool // nil: every topic
	q      *queue

	closeOnce sync.Once
	done      chan struct{}

	logMu      sync.Mutex
	lastLog    time.Time
	unreported uint64
}

func (s *Subscription) wants(topic string) bool { return s.topics == nil || s.topics[topic] }

// push queues m for the reader (called with the hub's lock held).
func (s *Subscription) push(m Message) {
	if total := s.q.push(m); total > 0 {
		s.reportDrop(m.Topic, total)
	}
}

// reportDrop logs dropped messages at most once per dropLogInterval, with
// the number dropped since the last line and in all.
func (s *Subscription) reportDrop(topic string, total uint64) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.unreported++
	if time.Since(s.lastLog) < dropLogInterval {
		return
	}
	s.hub.logf("[CHANNEL] %s is behind on %s: dropped the %d oldest queued message(s) (%d in all)", s.name, topic, s.unreported, total)
	s.unreported, s.lastLog = 0, time.Now()
}

// Ready has a token when messages may be waiting; then call Take.
func (s *Subscription) Ready() <-chan struct{} { return s.q.ready }

// Take removes and returns the queued messages, oldest first (maybe none).
func (s *Subscription) Take() []Message { return s.q.take() }

// Done is closed when the subscription is closed.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Dropped is how many messages this subscriber lost to a full queue.
func (s *Subscription) Dropped() uint64 {
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	return s.q.dropped
}

// Next waits for the next messages and returns them, oldest first; it
// returns ErrClosed once the subscription is closed, or ctx's error.
func (s *Subscription) Next(ctx context.Context) ([]Message, error) {
	for {
		if ms := s.q.take(); len(ms) > 0 {
			return ms, nil
		}
		select {
		case <-s.q.ready:
		case <-s.done:
			return nil, errClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close ends the subscription; it is safe to call more than once.
func (s *Subscription) Close() {
	s.closeOnce.Do(func() {
		s.hub.remove(s)
		close(s.done)
	})
}
