package store

import (
	"fmt"
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// EventSource is who records an Event: a component ("kubelet",
// "default-scheduler") and the node it runs on, if any.
type EventSource struct {
	Component, Host string
}

// Record writes an Event about a Pod, which `kubectl describe pod` lists.
// As Kubernetes' event recorder does, a repeated event (same pod, reason
// and message) bumps the count and last time of one Event instead of
// adding another, so a crash-looping pod does not fill the store.
func (s *Store) Record(p *corev1.Pod, from EventSource, typ, reason, message string) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%s/%s", p.UID, from.Component, reason, message)
	name := fmt.Sprintf("%s.%016x", p.Name, h.Sum64())
	now := metav1.NewTime(time.Now())
	key := Key{Kind: "Event", Namespace: p.Namespace, Name: name}
	if _, ok := s.Update(key, func(o runtime.Object) bool {
		e := o.(*corev1.Event)
		e.Count++
		e.LastTimestamp = now
		return true
	}); ok {
		return
	}
	ref := corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
	if from.Component == "kubelet" && len(p.Spec.Containers) > 0 {
		ref.FieldPath = fmt.Sprintf("spec.containers{%s}", p.Spec.Containers[0].Name)
	}
	s.Apply(&corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: p.Namespace},
		InvolvedObject: ref,
		Reason:         reason, Message: message, Type: typ, Count: 1,
		Source:              corev1.EventSource{Component: from.Component, Host: from.Host},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		ReportingController: from.Component,
		ReportingInstance:   from.Host,
	})
}
