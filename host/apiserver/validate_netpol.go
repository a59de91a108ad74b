package apiserver

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateNetworkPolicy checks what kube-apiserver checks of a
// NetworkPolicy's selectors, peers, ports and policy types.
func validateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	spec := field.NewPath("spec")
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs := metav1validation.ValidateLabelSelector(&np.Spec.PodSelector, opts, spec.Child("podSelector"))
	for i, rule := range np.Spec.Ingress {
		path := spec.Child("ingress").Index(i)
		errs = append(errs, validatePorts(rule.Ports, path.Child("ports"))...)
		for j, peer := range rule.From {
			errs = append(errs, validatePeer(peer, path.Child("from").Index(j))...)
		}
	}
	for i, rule := range np.Spec.Egress {
		path := spec.Child("egress").Index(i)
		errs = append(errs, validatePorts(rule.Ports, path.Child("ports"))...)
		for j, peer := range rule.To {
			errs = append(errs, validatePeer(peer, path.Child("to").Index(j))...)
		}
	}
	for i, t := range np.Spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			errs = append(errs, field.NotSupported(spec.Child("policyTypes").Index(i), t, []string{"Ingress", "Egress"}))
		}
	}
	return errs
}

func validatePeer(peer networkingv1.NetworkPolicyPeer, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	opts := metav1validation.LabelSelectorValidationOptions{}
	set := 0
	if peer.PodSelector != nil {
		set++
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.PodSelector, opts, path.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		set++
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, opts, path.Child("namespaceSelector"))...)
	}
	if b := peer.IPBlock; b != nil {
		if set > 0 {
			errs = append(errs, field.Forbidden(path, "may not specify more than 1 peer type"))
		}
		cidr, err := netip.ParsePrefix(b.CIDR)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("ipBlock", "cidr"), b.CIDR, "must be a valid CIDR (e.g. 10.0.0.0/8)"))
		}
		for k, except := range b.Except {
			e, err := netip.ParsePrefix(except)
			switch {
			case err != nil:
				errs = append(errs, field.Invalid(path.Child("ipBlock", "except").Index(k), except, "must be a valid CIDR"))
			case cidr.IsValid() && (!cidr.Contains(e.Addr()) || e.Bits() <= cidr.Bits()):
				errs = append(errs, field.Invalid(path.Child("ipBlock", "except").Index(k), except, "must be a strict subset of `cidr`"))
			}
		}
	} else if set == 0 {
		errs = append(errs, field.Required(path, "must specify a peer"))
	}
	return errs
}

func validatePorts(ports []networkingv1.NetworkPolicyPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, p := range ports {
		pp := path.Index(i)
		if p.Protocol != nil {
			switch *p.Protocol {
			case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
			default:
				errs = append(errs, field.NotSupported(pp.Child("protocol"), *p.Protocol, []string{"TCP", "UDP", "SCTP"}))
			}
		}
		if p.Port == nil {
			if p.EndPort != nil {
				errs = append(errs, field.Required(pp.Child("port"), "must be specified when endPort is specified"))
			}
			continue
		}
		if p.Port.Type == intstr.Int {
			for _, msg := range validation.IsValidPortNum(int(p.Port.IntVal)) {
				errs = append(errs, field.Invalid(pp.Child("port"), p.Port.IntVal, msg))
			}
			if p.EndPort != nil && *p.EndPort < p.Port.IntVal {
				errs = append(errs, field.Invalid(pp.Child("endPort"), *p.EndPort, "must be greater than or equal to `port`"))
			}
		} else {
			if p.EndPort != nil {
				errs = append(errs, field.Invalid(pp.Child("endPort"), *p.EndPort, "may not be specified when `port` is non-numeric"))
			}
			for _, msg := range validation.IsValidPortName(p.Port.StrVal) {
				errs = append(errs, field.Invalid(pp.Child("port"), p.Port.StrVal, msg))
			}
		}
	}
	return errs
}
