package kubelet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/channel"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
)

// capabilityChannelIPC is the capability k32_publish needs, and receiving.
const capabilityChannelIPC = "CHANNEL_IPC"

// podSubscriptions are the channel subscriptions of the node's pods, by
// pod. A subscription belongs to the Pod object, not to one runtime: it
// lives on across the container's restarts and spec changes, and its
// queued messages reach whichever runtime runs the pod next.
type podSubscriptions struct {
	mu    sync.Mutex
	byKey map[store.Key]*podSubscription
}

// podSubscription is one pod's subscription and what it was made from.
type podSubscription struct {
	uid, made string // the Pod's uid and subscriptionBasis, to see a change
	sub       *channel.Subscription
	cancel    context.CancelFunc
}

// publisher is what carries out the pods' k32_publish: the node's hub, or
// nil (K32_ERR_NOTSUP) when the node has none.
func (k *Kubelet) publisher() pod.Publisher {
	if k.cfg.Channels == nil {
		return nil
	}
	return k.cfg.Channels
}

// syncSubscriptions subscribes the pods in want to the topics of their
// abi.AnnotationEventTopics annotation and ends the subscriptions of pods
// that are gone or changed their topics. sync calls it.
func (k *Kubelet) syncSubscriptions(want map[store.Key]*corev1.Pod) {
	if k.cfg.Channels == nil {
		return
	}
	s := &k.subscriptions
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byKey == nil {
		s.byKey = map[store.Key]*podSubscription{}
	}
	for key, ps := range s.byKey {
		p, ok := want[key]
		if !ok || string(p.UID) != ps.uid || subscriptionBasis(p) != ps.made {
			ps.close()
			delete(s.byKey, key)
		}
	}
	for key, p := range want {
		value := p.Annotations[abi.AnnotationEventTopics]
		if _, ok := s.byKey[key]; ok || strings.TrimSpace(value) == "" {
			continue
		}
		ps := &podSubscription{uid: string(p.UID), made: subscriptionBasis(p)}
		s.byKey[key] = ps // also when refused, so the reason is logged once
		topics, err := channel.ParseTopics(value)
		switch {
		case err != nil:
			k.podLine(p, 2, fmt.Sprintf("%s ignored: %v", abi.AnnotationEventTopics, err))
			continue
		case !hasCapability(p.Spec.Containers[0], capabilityChannelIPC):
			k.podLine(p, 2, fmt.Sprintf("%s ignored: receiving channel messages needs the %s capability (securityContext.capabilities.add)",
				abi.AnnotationEventTopics, capabilityChannelIPC))
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		ps.sub = k.cfg.Channels.Subscribe("pod "+key.Namespace+"/"+key.Name, topics, channel.DefaultQueueLen)
		ps.cancel = cancel
		go k.deliverEvents(ctx, key, ps.sub)
	}
}

// subscriptionBasis is what a pod's subscription depends on: its topics and
// whether it may receive. A change of either (a new spec) makes a new
// subscription; any other spec change keeps the queued messages.
func subscriptionBasis(p *corev1.Pod) string {
	return fmt.Sprintf("%t|%s", hasCapability(p.Spec.Containers[0], capabilityChannelIPC), p.Annotations[abi.AnnotationEventTopics])
}

// hasCapability reports whether the container adds capability.
func hasCapability(c corev1.Container, capability corev1.Capability) bool {
	sc := c.SecurityContext
	return sc != nil && sc.Capabilities != nil && slices.Contains(sc.Capabilities.Add, capability)
}

// closeSubscriptions ends every pod's subscription (the kubelet stops).
func (k *Kubelet) closeSubscriptions() {
	s := &k.subscriptions
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, ps := range s.byKey {
		ps.close()
		delete(s.byKey, key)
	}
}

func (ps *podSubscription) close() {
	if ps.sub != nil {
		ps.cancel()
		ps.sub.Close()
	}
}

// deliverEvents hands each message of sub, in order, to the k32_event of
// the pod's current runtime; Pod.Event waits while the pod (re)starts. A
// message the pod cannot take is logged in its log, once per distinct
// reason in a row, and dropped.
func (k *Kubelet) deliverEvents(ctx context.Context, key store.Key, sub *channel.Subscription) {
	lastErr := ""
	for {
		ms, err := sub.Next(ctx)
		if err != nil {
			return
		}
		for _, m := range ms {
			p, ok := k.Pod(key.Namespace, key.Name)
			if !ok {
				continue
			}
			if _, err := p.Event(ctx, m.Topic, m.Data); err != nil && ctx.Err() == nil {
				if msg := err.Error(); msg != lastErr {
					lastErr = msg
					k.nodeLine(key, 2, fmt.Sprintf("channel message on %s not delivered: %s", m.Topic, msg))
				}
				continue
			}
			lastErr = ""
		}
	}
}

// podLine writes one line of the node's own about p into p's log stream.
func (k *Kubelet) podLine(p *corev1.Pod, level int, text string) {
	k.nodeLine(store.KeyOf(p), level, text)
}

// nodeLine writes one line of the node's own to a pod's log followers and
// the node's pod log (the history kubectl logs prints keeps only the pod's
// own lines, loglimit.go).
func (k *Kubelet) nodeLine(key store.Key, level int, text string) {
	line := pod.Line{Time: time.Now(), Stream: "k32", Level: level, Text: text}
	if k.cfg.Log != nil {
		k.cfg.Log(key.Namespace, key.Name, line)
	}
	k.logs.publish(key, line)
}
