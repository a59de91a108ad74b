package ingress

import (
	"encoding/json"
	"sort"
)

// BundlesChanged serves the StaticBundles names from the image trees anew:
// each is read into a new snapshot and the routes switch to it at once (a
// request in flight finishes on the old one). Then every event stream that
// lists abi.TopicReload sends a reload event naming them. It returns the
// first bundle that could not be read; its routes answer 503 until a
// later call reads it.
func (c *Controller) BundlesChanged(names []string) error {
	c.bundleMu.Lock()
	for _, name := range names {
		delete(c.bundles, name)
	}
	c.bundleMu.Unlock()
	var firstErr error
	for _, name := range names {
		if _, err := c.bundle(name); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	old := c.built.Load()
	c.built.Store(&builtTable{table: old.table, from: -1, at: old.at}) // the backends hold the old snapshots
	c.rebuild()

	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	data, _ := json.Marshal(map[string][]string{"bundles": sorted})
	c.ann.mu.Lock()
	var streams []*eventStream
	for _, s := range c.ann.streams {
		if s.reload {
			streams = append(streams, s)
		}
	}
	c.ann.mu.Unlock()
	for _, s := range streams {
		s.sendReload(data)
	}
	return firstErr
}
