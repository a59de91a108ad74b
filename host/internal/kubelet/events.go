package kubelet

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/termtext"
)

// recorder remembers what each pod runtime last reported, so the kubelet
// records an Event (store.Record) on each transition, not each status.
type recorder struct {
	mu   sync.Mutex
	last map[string]eventState // by "<uid>/<generation>": what each runtime last reported
}

// eventState is what a pod's runtime last reported, to see transitions.
type eventState struct {
	ready  bool
	reason string
}

// observe records the events of a status change of p's runtime.
func (k *Kubelet) observe(p *corev1.Pod, st pod.Status) {
	k.events.mu.Lock()
	if k.events.last == nil {
		k.events.last = map[string]eventState{}
	}
	key := string(p.UID) + "/" + fmt.Sprint(p.Generation)
	before := k.events.last[key]
	now := eventState{ready: st.Ready, reason: st.Reason}
	k.events.last[key] = now
	k.events.mu.Unlock()
	container := p.Spec.Containers[0].Name
	if now.ready && !before.ready {
		k.event(p, corev1.EventTypeNormal, "Started", fmt.Sprintf("Started container %s", container))
	}
	if now.reason != "" && now.reason != before.reason && now.reason != pod.ReasonCompleted {
		msg := st.Message
		if now.reason == pod.ReasonCrashLoopBackOff {
			msg = fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", container, p.Name, p.Namespace, p.UID)
		}
		k.event(p, corev1.EventTypeWarning, now.reason, msg)
	}
}

// forget drops what observe remembers of a runtime that is gone.
func (k *Kubelet) forget(uid string, generation int64) {
	k.events.mu.Lock()
	defer k.events.mu.Unlock()
	delete(k.events.last, uid+"/"+fmt.Sprint(generation))
}

// event writes one Event about p, or counts it again. Its message may quote
// text from outside (a registry's error, an image reference), made one safe
// line by termtext.Line, as kubectl describe prints it to a terminal.
func (k *Kubelet) event(p *corev1.Pod, typ, reason, message string) {
	k.cfg.Source.Record(p, store.EventSource{Component: "kubelet", Host: k.cfg.NodeName}, typ, reason, termtext.Line(message))
}
