package admission

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	serviceTypes     = []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}
	sessionAffinites = []corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone}
)

// defaultService fills in the type, session affinity, the ports'
// protocol and a target port equal to the port, as kube-apiserver does.
func defaultService(svc *corev1.Service) {
	if svc.Spec.Type == "" {
		svc.Spec.Type = corev1.ServiceTypeClusterIP
	}
	if svc.Spec.SessionAffinity == "" {
		svc.Spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0 {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
}

// validateService checks a Service as kube-apiserver does: its type,
// session affinity, selector, and ports (named when there are several,
// names unique, port and target port in range, protocol).
func validateService(svc *corev1.Service) field.ErrorList {
	errs := validateMeta(svc, true, nameIsDNS1035Label)
	spec := field.NewPath("spec")
	if !sets.New(serviceTypes...).Has(svc.Spec.Type) {
		errs = append(errs, field.NotSupported(spec.Child("type"), svc.Spec.Type, serviceTypes))
	}
	if !sets.New(sessionAffinites...).Has(svc.Spec.SessionAffinity) {
		errs = append(errs, field.NotSupported(spec.Child("sessionAffinity"), svc.Spec.SessionAffinity, sessionAffinites))
	}
	ports := spec.Child("ports")
	if len(svc.Spec.Ports) == 0 && svc.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.ClusterIP != corev1.ClusterIPNone {
		errs = append(errs, field.Required(ports, ""))
	}
	names := sets.New[string]()
	portProtocols := sets.New[string]()
	for i, p := range svc.Spec.Ports {
		errs = append(errs, validateServicePort(p, len(svc.Spec.Ports) > 1, names, ports.Index(i))...)
		key := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if portProtocols.Has(key) {
			errs = append(errs, field.Duplicate(ports.Index(i), key))
		}
		portProtocols.Insert(key)
	}
	errs = append(errs, validateServiceNetworking(svc, spec)...)
	return append(errs, validateSelectorLabels(svc.Spec.Selector, spec.Child("selector"))...)
}

func validateServicePort(p corev1.ServicePort, nameRequired bool, names sets.Set[string], path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case p.Name == "" && nameRequired:
		errs = append(errs, field.Required(path.Child("name"), ""))
	case p.Name != "":
		for _, msg := range validation.IsDNS1123Label(p.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), p.Name, msg))
		}
		if names.Has(p.Name) {
			errs = append(errs, field.Duplicate(path.Child("name"), p.Name))
		}
		names.Insert(p.Name)
	}
	for _, msg := range validation.IsValidPortNum(int(p.Port)) {
		errs = append(errs, field.Invalid(path.Child("port"), p.Port, msg))
	}
	errs = append(errs, validateProtocol(p.Protocol, path.Child("protocol"))...)
	target := path.Child("targetPort")
	if p.TargetPort.Type == intstr.String {
		for _, msg := range validation.IsValidPortName(p.TargetPort.StrVal) {
			errs = append(errs, field.Invalid(target, p.TargetPort.StrVal, msg))
		}
	} else {
		for _, msg := range validation.IsValidPortNum(int(p.TargetPort.IntVal)) {
			errs = append(errs, field.Invalid(target, p.TargetPort.IntVal, msg))
		}
	}
	return errs
}
