package channel

import "sync"

// DefaultQueueLen is how many messages a subscriber keeps by default before
// the oldest are dropped.
const DefaultQueueLen = 64

// outboxLen is how many publishes a worker keeps for the control plane.
const outboxLen = 1024

// queue is a bounded FIFO of messages that drops the oldest when full, so
// that a slow reader never blocks the writer. ready has a token whenever
// the queue may hold messages.
type queue struct {
	mu      sync.Mutex
	items   []Message
	limit   int
	dropped uint64
	ready   chan struct{}
}

func newQueue(limit int) *queue {
	return &queue{limit: limit, ready: make(chan struct{}, 1)}
}

// push appends m, dropping the oldest message when the queue is full; it
// returns the total number dropped so far when it dropped one, else 0.
func (q *queue) push(m Message) uint64 {
	q.mu.Lock()
	var dropped uint64
	if len(q.items) >= q.limit {
		q.items = q.items[1:]
		q.dropped++
		dropped = q.dropped
	}
	q.items = append(q.items, m)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return dropped
}

// take removes and returns every queued message, oldest first.
func (q *queue) take() []Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// unshift puts messages back at the front (a forward that failed), keeping
// at most the queue's limit of the newest.
func (q *queue) unshift(ms []Message) {
	q.mu.Lock()
	q.items = append(append([]Message{}, ms...), q.items...)
	if extra := len(q.items) - q.limit; extra > 0 {
		q.items = q.items[extra:]
		q.dropped += uint64(extra)
	}
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}
