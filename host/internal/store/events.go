package store

import (
	"fmt"
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/kinds"
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
	e := PodEvent(p, from, typ, reason, message, metav1.NewTime(time.Now()))
	if _, ok := s.Update(KeyOf(e), func(o runtime.Object) bool {
		CountAgain(o.(*corev1.Event), e.LastTimestamp)
		return true
	}); ok {
		return
	}
	s.Apply(e)
}

// PodEvent is the Event that records reason about p for the first time. Its
// name is derived from the pod, the source, the reason and the message, so
// that every recorder (the store's own, a worker's over the API) finds the
// Event of a repeat and counts it there with CountAgain.
func PodEvent(p *corev1.Pod, from EventSource, typ, reason, message string, now metav1.Time) *corev1.Event {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%s/%s", p.UID, from.Component, reason, message)
	ref := corev1.ObjectReference{Kind: kinds.Pod, APIVersion: "v1", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
	if from.Component == "kubelet" && len(p.Spec.Containers) > 0 {
		ref.FieldPath = fmt.Sprintf("spec.containers{%s}", p.Spec.Containers[0].Name)
	}
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%016x", p.Name, h.Sum64()), Namespace: p.Namespace},
		InvolvedObject: ref,
		Reason:         reason, Message: message, Type: typ, Count: 1,
		Source:              corev1.EventSource{Component: from.Component, Host: from.Host},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		ReportingController: from.Component,
		ReportingInstance:   from.Host,
	}
}

// CountAgain records one more occurrence of e at now.
func CountAgain(e *corev1.Event, now metav1.Time) {
	e.Count++
	e.LastTimestamp = now
}
