package kubelet

import (
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
)

// eventCache keeps the Events a worker wrote last, as the API server
// answered them, so that a repeat counts again on its copy without reading
// the Event first: a Kubernetes cluster's Node authorizer lets a node
// create and update Events but not read them (as a kubelet's event
// correlator keeps its own). It holds at most abi.EventCacheMax; past it
// the oldest goes first.
type eventCache struct {
	mu    sync.Mutex
	byKey map[string]*corev1.Event
	order []string // keys, oldest first
}

func eventKey(namespace, name string) string { return namespace + "/" + name }

// get returns a copy of the Event namespace/name as last written.
func (c *eventCache) get(namespace, name string) (*corev1.Event, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[eventKey(namespace, name)]
	if !ok {
		return nil, false
	}
	return e.DeepCopy(), true
}

// put remembers e as written.
func (c *eventCache) put(e *corev1.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[string]*corev1.Event{}
	}
	key := eventKey(e.Namespace, e.Name)
	if _, ok := c.byKey[key]; !ok {
		for len(c.order) >= abi.EventCacheMax {
			delete(c.byKey, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, key)
	}
	c.byKey[key] = e
}

// forget drops the Event namespace/name.
func (c *eventCache) forget(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := eventKey(namespace, name)
	if _, ok := c.byKey[key]; !ok {
		return
	}
	delete(c.byKey, key)
	for i, k := range c.order {
		if k == key {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}
