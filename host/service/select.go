// Package service implements the spec's "Services and Endpoints" and
// "Service environment variables": which pods a Service selects, how its
// target ports resolve, the Endpoints and EndpointSlices computed from them
// on read, and the variables a starting pod gets. The API server, the
// kubelet and the Ingress controller share it, so they agree.
package service

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/host/store"
)

// Selects reports whether svc's selector matches p: same namespace, a
// non-empty selector, matching labels. It says nothing of p's state.
func Selects(svc *corev1.Service, p *corev1.Pod) bool {
	if len(svc.Spec.Selector) == 0 || svc.Namespace != p.Namespace {
		return false
	}
	return labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(p.Labels))
}

// Running reports whether p is Running and not terminating: the pods a
// Service sends traffic to.
func Running(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil
}

// Ready reports whether p's Ready condition is True.
func Ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// SelectPods returns the Running, non-terminating pods of the Service's
// namespace whose labels match its selector ("A Service selects Running,
// non-terminating pods in the same namespace whose labels match
// spec.selector").
func SelectPods(s *store.Store, svc *corev1.Service) []*corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	var pods []*corev1.Pod
	for _, o := range s.List("Pod", svc.Namespace) {
		if p := o.(*corev1.Pod); Running(p) && Selects(svc, p) {
			pods = append(pods, p)
		}
	}
	return pods
}

// ResolveTargetPort maps a Service port to a pod's port: targetPort as a
// number, as the name of a containerPort, or by default the port itself
// ("Omitting targetPort defaults it to port").
func ResolveTargetPort(port corev1.ServicePort, p *corev1.Pod) (int32, bool) {
	switch {
	case port.TargetPort.Type == intstr.String && port.TargetPort.StrVal != "":
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == port.TargetPort.StrVal {
					return cp.ContainerPort, true
				}
			}
		}
		return 0, false
	case port.TargetPort.IntVal != 0:
		return port.TargetPort.IntVal, true
	default:
		return port.Port, true
	}
}

// protocol is a port's protocol, TCP when unset.
func protocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}
