package apiserver

import (
	"github.com/kube32/kube32/abi"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// SetDefaults fills in what kube-apiserver defaults and kube32 relies on
// or prints: Service type, protocols and target ports, a Pod's restart
// policy, NetworkPolicy policyTypes, the Namespace name label.
func SetDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.Namespace:
		if o.Labels == nil {
			o.Labels = map[string]string{}
		}
		o.Labels[abi.LabelNamespaceName] = o.Name
		if o.Status.Phase == "" {
			o.Status.Phase = corev1.NamespaceActive
		}
	case *corev1.Service:
		if o.Spec.Type == "" {
			o.Spec.Type = corev1.ServiceTypeClusterIP
		}
		if o.Spec.SessionAffinity == "" {
			o.Spec.SessionAffinity = corev1.ServiceAffinityNone
		}
		for i := range o.Spec.Ports {
			p := &o.Spec.Ports[i]
			if p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
			if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0 {
				p.TargetPort = intstr.FromInt32(p.Port)
			}
		}
	case *corev1.Pod:
		if o.Spec.RestartPolicy == "" {
			o.Spec.RestartPolicy = corev1.RestartPolicyAlways
		}
		for i := range o.Spec.Containers {
			for j := range o.Spec.Containers[i].Ports {
				if o.Spec.Containers[i].Ports[j].Protocol == "" {
					o.Spec.Containers[i].Ports[j].Protocol = corev1.ProtocolTCP
				}
			}
		}
	case *networkingv1.NetworkPolicy:
		if len(o.Spec.PolicyTypes) == 0 {
			o.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
			if len(o.Spec.Egress) > 0 {
				o.Spec.PolicyTypes = append(o.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
			}
		}
		tcp := corev1.ProtocolTCP
		for i := range o.Spec.Ingress {
			for j := range o.Spec.Ingress[i].Ports {
				if o.Spec.Ingress[i].Ports[j].Protocol == nil {
					o.Spec.Ingress[i].Ports[j].Protocol = &tcp
				}
			}
		}
		for i := range o.Spec.Egress {
			for j := range o.Spec.Egress[i].Ports {
				if o.Spec.Egress[i].Ports[j].Protocol == nil {
					o.Spec.Egress[i].Ports[j].Protocol = &tcp
				}
			}
		}
	}
}

// resetStatus clears what a client may not set on create: the status of
// kinds whose status a controller writes.
func resetStatus(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Status = corev1.PodStatus{Phase: corev1.PodPending}
	case *corev1.Service:
		o.Status = corev1.ServiceStatus{}
	case *networkingv1.Ingress:
		o.Status = networkingv1.IngressStatus{}
	case *corev1.Namespace:
		o.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	}
}

// copyStatus sets dst's status to src's, for kinds with a status.
func copyStatus(dst, src runtime.Object) {
	switch d := dst.(type) {
	case *corev1.Pod:
		d.Status = src.(*corev1.Pod).Status
	case *corev1.Service:
		d.Status = src.(*corev1.Service).Status
	case *networkingv1.Ingress:
		d.Status = src.(*networkingv1.Ingress).Status
	case *corev1.Namespace:
		d.Status = src.(*corev1.Namespace).Status
	case *corev1.Node:
		d.Status = src.(*corev1.Node).Status
	}
}
