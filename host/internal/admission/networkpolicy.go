package admission

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// policyTypes are a NetworkPolicy's policy types, sorted as kube-apiserver
// lists them.
var policyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeEgress, networkingv1.PolicyTypeIngress}

// defaultNetworkPolicy fills in policyTypes (Ingress, and Egress when
// there are egress rules) and the ports' protocol, as kube-apiserver does.
func defaultNetworkPolicy(np *networkingv1.NetworkPolicy) {
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) > 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
	defaultProtocols := func(ports []networkingv1.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				tcp := corev1.ProtocolTCP
				ports[i].Protocol = &tcp
			}
		}
	}
	for i := range np.Spec.Ingress {
		defaultProtocols(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		defaultProtocols(np.Spec.Egress[i].Ports)
	}
}

// networkPolicyWarnings says what of a NetworkPolicy kube32 does not
// enforce: nodes check the connections their pods open (egress) and
// nothing of those that reach them (docs/networkpolicy.md), so ingress
// rules and the Ingress policy type, which kube-apiserver defaults, change
// nothing. A policy without Egress then changes nothing at all.
func networkPolicyWarnings(np *networkingv1.NetworkPolicy) []string {
	ingressType, egressType := false, false
	for _, t := range np.Spec.PolicyTypes {
		ingressType = ingressType || t == networkingv1.PolicyTypeIngress
		egressType = egressType || t == networkingv1.PolicyTypeEgress
	}
	const unenforced = "kube32 enforces the egress of NetworkPolicies only (docs/networkpolicy.md): the pods this policy selects still accept every connection"
	var warnings []string
	switch {
	case len(np.Spec.Ingress) > 0:
		warnings = append(warnings, "spec.ingress: ingress rules are not enforced: "+unenforced)
	case ingressType && egressType:
		warnings = append(warnings, "spec.policyTypes: Ingress is not enforced: "+unenforced+"; list only Egress for a policy of egress rules")
	}
	if ingressType && !egressType {
		warnings = append(warnings, "spec.policyTypes: without Egress this policy changes nothing in kube32, which enforces the egress of NetworkPolicies only (docs/networkpolicy.md)")
	}
	return warnings
}

// validateNetworkPolicy checks what kube-apiserver checks of a
// NetworkPolicy: its selectors, peers, ports and policy types.
func validateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	errs := validateMeta(np, true, nameIsDNSSubdomain)
	spec := field.NewPath("spec")
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs = append(errs, metav1validation.ValidateLabelSelector(&np.Spec.PodSelector, opts, spec.Child("podSelector"))...)
	for i, rule := range np.Spec.Ingress {
		path := spec.Child("ingress").Index(i)
		errs = append(errs, validatePolicyPorts(rule.Ports, path.Child("ports"))...)
		for j, peer := range rule.From {
			errs = append(errs, validatePeer(peer, path.Child("from").Index(j))...)
		}
	}
	for i, rule := range np.Spec.Egress {
		path := spec.Child("egress").Index(i)
		errs = append(errs, validatePolicyPorts(rule.Ports, path.Child("ports"))...)
		for j, peer := range rule.To {
			errs = append(errs, validatePeer(peer, path.Child("to").Index(j))...)
		}
	}
	if len(np.Spec.PolicyTypes) > len(policyTypes) {
		return append(errs, field.Invalid(spec.Child("policyTypes"), np.Spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range np.Spec.PolicyTypes {
		if !sets.New(policyTypes...).Has(t) {
			errs = append(errs, field.NotSupported(spec.Child("policyTypes").Index(i), t, policyTypes))
		}
	}
	return errs
}

// validatePeer checks that a peer is exactly one of an ipBlock or
// pod and namespace selectors.
func validatePeer(peer networkingv1.NetworkPolicyPeer, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	opts := metav1validation.LabelSelectorValidationOptions{}
	peers := 0
	if peer.PodSelector != nil {
		peers++
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.PodSelector, opts, path.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		peers++
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, opts, path.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		peers++
		errs = append(errs, validateIPBlock(peer.IPBlock, path.Child("ipBlock"))...)
	}
	switch {
	case peers == 0:
		errs = append(errs, field.Required(path, "must specify a peer"))
	case peers > 1 && peer.IPBlock != nil:
		errs = append(errs, field.Forbidden(path, "may not specify both ipBlock and another peer"))
	}
	return errs
}

// validateIPBlock checks that cidr is a CIDR and every except a CIDR
// strictly inside it.
func validateIPBlock(b *networkingv1.IPBlock, path *field.Path) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(path.Child("cidr"), "")}
	}
	errs := validation.IsValidCIDRForLegacyField(path.Child("cidr"), b.CIDR, false, nil)
	cidr, cidrErr := netip.ParsePrefix(b.CIDR)
	for i, except := range b.Except {
		exceptPath := path.Child("except").Index(i)
		exceptErrs := validation.IsValidCIDRForLegacyField(exceptPath, except, false, nil)
		errs = append(errs, exceptErrs...)
		e, err := netip.ParsePrefix(except)
		if len(exceptErrs) > 0 || cidrErr != nil || err != nil {
			continue // reported above, or a legacy form only the API's parser reads
		}
		if e.Addr().Is4() != cidr.Addr().Is4() || !cidr.Contains(e.Addr()) || e.Bits() <= cidr.Bits() {
			errs = append(errs, field.Invalid(exceptPath, except, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// validatePolicyPorts checks each port's protocol, its number or name, and
// that an endPort is a port number not below port.
func validatePolicyPorts(ports []networkingv1.NetworkPolicyPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, p := range ports {
		pp := path.Index(i)
		if p.Protocol != nil {
			errs = append(errs, validateProtocol(*p.Protocol, pp.Child("protocol"))...)
		}
		if p.Port == nil {
			if p.EndPort != nil {
				errs = append(errs, field.Required(pp.Child("port"), "must be specified when endPort is specified"))
			}
			continue
		}
		if p.Port.Type == intstr.String {
			if p.EndPort != nil {
				errs = append(errs, field.Invalid(pp.Child("endPort"), *p.EndPort, "may not be specified when `port` is non-numeric"))
			}
			for _, msg := range validation.IsValidPortName(p.Port.StrVal) {
				errs = append(errs, field.Invalid(pp.Child("port"), p.Port.StrVal, msg))
			}
			continue
		}
		for _, msg := range validation.IsValidPortNum(int(p.Port.IntVal)) {
			errs = append(errs, field.Invalid(pp.Child("port"), p.Port.IntVal, msg))
		}
		if p.EndPort == nil {
			continue
		}
		if *p.EndPort < p.Port.IntVal {
			errs = append(errs, field.Invalid(pp.Child("endPort"), *p.EndPort, "must be greater than or equal to `port`"))
		}
		for _, msg := range validation.IsValidPortNum(int(*p.EndPort)) {
			errs = append(errs, field.Invalid(pp.Child("endPort"), *p.EndPort, msg))
		}
	}
	return errs
}
