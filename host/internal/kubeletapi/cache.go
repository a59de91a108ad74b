package kubeletapi

import (
	"container/list"
	"sync"
	"time"
)

// cache keeps review answers by key, each until its own expiry, at most
// max of them: past it the oldest go first, so that a client sending
// endless new tokens costs the node a bounded memory.
type cache[V any] struct {
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element
	order   list.List // of *entry[V], oldest first
}

type entry[V any] struct {
	key     string
	value   V
	expires time.Time
}

func newCache[V any](max int) *cache[V] {
	return &cache[V]{max: max, now: time.Now, entries: map[string]*list.Element{}}
}

// get returns the unexpired answer of key.
func (c *cache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	e := el.Value.(*entry[V])
	if !c.now().Before(e.expires) {
		c.order.Remove(el)
		delete(c.entries, key)
		var zero V
		return zero, false
	}
	return e.value, true
}

// put keeps value as key's answer for ttl.
func (c *cache[V]) put(key string, value V, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.Remove(el)
		delete(c.entries, key)
	}
	for c.order.Len() >= c.max {
		oldest := c.order.Remove(c.order.Front()).(*entry[V])
		delete(c.entries, oldest.key)
	}
	c.entries[key] = c.order.PushBack(&entry[V]{key: key, value: value, expires: c.now().Add(ttl)})
}

func (c *cache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
