package kubelet

import (
	"sync"

	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
)

// logFollowers fans each pod's new log lines out to `kubectl logs -f`.
type logFollowers struct {
	mu        sync.Mutex
	followers map[store.Key]map[int]chan pod.Line
	next      int
}

// publish hands line to every follower of key; a follower that does not
// keep up loses lines rather than slowing the pod down.
func (f *logFollowers) publish(key store.Key, line pod.Line) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.followers[key] {
		select {
		case ch <- line:
		default:
		}
	}
}

func (f *logFollowers) add(key store.Key) (int, chan pod.Line) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.followers == nil {
		f.followers = map[store.Key]map[int]chan pod.Line{}
	}
	if f.followers[key] == nil {
		f.followers[key] = map[int]chan pod.Line{}
	}
	f.next++
	ch := make(chan pod.Line, 1024)
	f.followers[key][f.next] = ch
	return f.next, ch
}

func (f *logFollowers) remove(key store.Key, id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.followers[key], id)
	if len(f.followers[key]) == 0 {
		delete(f.followers, key)
	}
}

// FollowLogs returns the pod's kept log lines (the lines its rate limit let
// through, loglimit.go) and a channel of the lines that follow, until stop
// is called. ok is false when the pod does not run on this node.
func (k *Kubelet) FollowLogs(namespace, name string) (lines []pod.Line, next <-chan pod.Line, stop func(), ok bool) {
	key := store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name}
	k.mu.Lock()
	r, ok := k.pods[key]
	k.mu.Unlock()
	if !ok {
		return nil, nil, nil, false
	}
	lines, id, ch := r.log.follow()
	var once sync.Once
	return lines, ch, func() { once.Do(func() { k.logs.remove(key, id) }) }, true
}
