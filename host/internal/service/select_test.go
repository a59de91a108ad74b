package service

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selects agrees with a label selector made from the Service's selector.
func TestSelectsAsALabelSelector(t *testing.T) {
	selectors := []map[string]string{{"app": "a"}, {"app": "a", "tier": "web"}, {"app": ""}}
	podLabels := []map[string]string{nil, {"app": "a"}, {"app": "b"}, {"app": "a", "tier": "web"}, {"tier": "web"}, {"app": ""}}
	for _, sel := range selectors {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, Spec: corev1.ServiceSpec{Selector: sel}}
		for _, l := range podLabels {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Labels: l}}
			want := labels.SelectorFromSet(sel).Matches(labels.Set(l))
			if got := selects(svc, p); got != want {
				t.Errorf("selector %v, labels %v: selects = %v, want %v", sel, l, got, want)
			}
		}
	}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Labels: map[string]string{"app": "a"}}}
	if selects(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, Spec: corev1.ServiceSpec{Selector: selectors[0]}}, other) {
		t.Error("a Service selects a pod of another namespace")
	}
	if selects(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}}, other) {
		t.Error("a Service without a selector selects a pod")
	}
}
