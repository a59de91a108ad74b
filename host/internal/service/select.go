// Package service is everything about Services (docs/calls.md,
// docs/ingress.md): which pods a Service selects, how its target ports
// resolve, the Endpoints and EndpointSlices computed from them on read, the
// variables a starting pod gets, and the one resolver (Resolve) that turns
// a Service port into the pods behind it for the Ingress and for every
// node's calls. The API server, the kubelets and the Ingress controller
// share it, so they agree.
package service

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// selects reports whether svc's selector matches p: same namespace, a
// non-empty selector, matching labels. It says nothing of p's state.
func selects(svc *corev1.Service, p *corev1.Pod) bool {
	if len(svc.Spec.Selector) == 0 || svc.Namespace != p.Namespace {
		return false
	}
	// What labels.SelectorFromSet(selector).Matches does (each key present
	// with an equal value), without making a selector per pod: Endpoints
	// ask it of every pod for every Service.
	for k, v := range svc.Spec.Selector {
		if got, ok := p.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
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

// resolveTargetPort maps a Service port to a pod's port: targetPort as a
// number, as the name of a containerPort, or by default the port itself
// ("Omitting targetPort defaults it to port").
func resolveTargetPort(port corev1.ServicePort, p *corev1.Pod) (int32, bool) {
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
