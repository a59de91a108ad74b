package channel

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/activity"
)

// Message is one message published on a topic.
type Message struct {
	Topic string `json:"topic"`
	Data  []byte `json:"data"`
	// From is who published it: "<namespace>/<name>" for a pod, or a
	// component such as "ingress default/web".
	From string `json:"from,omitempty"`
}

// maxTopicLen bounds a topic name; longer ones are refused with an error.
const maxTopicLen = abi.ChannelTopicMax

// maxDataLen bounds a message's payload (K32_ERR_TOOBIG beyond it): a
// message is copied into every subscriber's queue.
const maxDataLen = abi.ChannelMessageMax

// Options configure a hub.
type Options struct {
	// Upstream, when set, makes this a worker's hub: Publish forwards to the
	// control plane and Run delivers what the control plane streams back.
	Upstream *Upstream
	// Logf receives the hub's log lines (dropped messages, lost upstream);
	// nil discards them.
	Logf func(format string, args ...any)
	// Activity receives every message the hub sequences (the control
	// plane's hub: a worker's forwards its pods' messages there); nil: none.
	Activity *activity.Stream
}

// Hub fans the messages of one node out to its subscribers.
type Hub struct {
	opts Options

	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	outbox *queue // messages waiting to be forwarded upstream (workers only)
	// connected reports whether a worker's hub follows the control plane.
	connected bool
}

// New returns a hub; a worker's hub (opts.Upstream set) needs Run.
func New(opts Options) *Hub {
	h := &Hub{opts: opts, subs: map[*Subscription]struct{}{}}
	if opts.Upstream != nil {
		h.outbox = newQueue(outboxLen)
	}
	return h
}

// Publish publishes a message: on the control plane it is delivered at
// once, on a worker it is queued for the control plane. It never blocks on
// subscribers; it implements host/internal/pod's Publisher.
func (h *Hub) Publish(_ context.Context, from, topic string, data []byte) error {
	if err := validTopic(topic); err != nil {
		// The guest gets K32_ERR_INVAL, as for an empty topic.
		return fmt.Errorf("%w: %v", abi.ErrInval, err)
	}
	if len(data) > maxDataLen {
		return fmt.Errorf("%w: a channel message holds at most %d bytes, not %d", abi.ErrTooBig, maxDataLen, len(data))
	}
	m := Message{Topic: topic, Data: data, From: from}
	if h.outbox != nil {
		if n := h.outbox.push(m); n > 0 {
			h.logf("[CHANNEL] the control plane is behind: dropped the oldest unsent message (%d so far)", n)
		}
		return nil
	}
	h.opts.Activity.Message(from, topic, data)
	h.Deliver(m)
	return nil
}

// Deliver hands m to every local subscriber of its topic, in the order
// Deliver is called.
func (h *Hub) Deliver(m Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.wants(m.Topic) {
			s.push(m)
		}
	}
}

// Subscribe returns a subscription to topics (nil: every topic) that keeps
// up to queueLen messages (0: DefaultQueueLen); name says who subscribes,
// for log lines. Close it when done.
func (h *Hub) Subscribe(name string, topics []string, queueLen int) *Subscription {
	if queueLen <= 0 {
		queueLen = DefaultQueueLen
	}
	s := &Subscription{hub: h, name: name, q: newQueue(queueLen), done: make(chan struct{})}
	if topics != nil {
		s.topics = map[string]bool{}
		for _, t := range topics {
			s.topics[t] = true
		}
	}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// Subscribers counts the subscriptions of topic (tests and telemetry).
func (h *Hub) Subscribers(topic string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for s := range h.subs {
		if s.wants(topic) {
			n++
		}
	}
	return n
}

func (h *Hub) remove(s *Subscription) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

func (h *Hub) logf(format string, args ...any) {
	if h.opts.Logf != nil {
		h.opts.Logf(format, args...)
	}
}

// validTopic checks a topic name: not empty, at most MaxTopicLen bytes, no
// whitespace, commas or semicolons (the annotations' separators) and no
// control characters.
func validTopic(topic string) error {
	switch {
	case topic == "":
		return fmt.Errorf("empty channel topic")
	case len(topic) > maxTopicLen:
		return fmt.Errorf("channel topic %.32q…: longer than %d bytes", topic, maxTopicLen)
	case strings.ContainsFunc(topic, func(r rune) bool { return r <= ' ' || r == ',' || r == ';' || r == 0x7f }):
		return fmt.Errorf("channel topic %q: whitespace, control characters, ',' and ';' are not allowed", topic)
	}
	return nil
}

// ParseTopics splits a comma-separated topic list (abi.AnnotationEventTopics),
// trimming blanks and skipping empty items; invalid names are an error.
func ParseTopics(list string) ([]string, error) {
	var topics []string
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if err := validTopic(t); err != nil {
			return nil, err
		}
		topics = append(topics, t)
	}
	return topics, nil
}
