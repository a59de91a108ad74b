package store

import "sync"

// subscriber queues events without bound and hands them to out in order, so
// a slow reader never blocks the store (and so never deadlocks a reader
// that calls back into the store).
type subscriber struct {
	out    chan Event
	mu     sync.Mutex
	queue  []Event
	wake   chan struct{}
	closed chan struct{}
}

func newSubscriber() *subscriber {
	sub := &subscriber{out: make(chan Event), wake: make(chan struct{}, 1), closed: make(chan struct{})}
	go sub.pump()
	return sub
}

func (sub *subscriber) push(e Event) {
	sub.mu.Lock()
	sub.queue = append(sub.queue, e)
	sub.mu.Unlock()
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

func (sub *subscriber) close() { close(sub.closed) }

func (sub *subscriber) pump() {
	defer close(sub.out)
	for {
		sub.mu.Lock()
		batch := sub.queue
		sub.queue = nil
		sub.mu.Unlock()
		for _, e := range batch {
			select {
			case sub.out <- e:
			case <-sub.closed:
				return
			}
		}
		select {
		case <-sub.wake:
		case <-sub.closed:
			return
		}
	}
}
