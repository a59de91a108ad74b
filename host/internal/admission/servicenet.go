package admission

import (
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The addressing rules of a Service kube-apiserver checks: cluster IPs,
// external names and IPs, node ports, traffic and IP family policies,
// load-balancer source ranges. kube32 acts on few of them, but admits only
// what kube-apiserver admits.

var (
	trafficPolicies   = []corev1.ServiceExternalTrafficPolicy{corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal}
	internalPolicies  = []corev1.ServiceInternalTrafficPolicy{corev1.ServiceInternalTrafficPolicyCluster, corev1.ServiceInternalTrafficPolicyLocal}
	ipFamilyPolicies  = []corev1.IPFamilyPolicy{corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack}
	ipFamilies        = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	externallyReached = sets.New(corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer)
)

func validateServiceNetworking(svc *corev1.Service, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateClusterIPs(svc, spec)...)
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		name := strings.TrimSuffix(svc.Spec.ExternalName, ".") // a CNAME may end in a dot
		if name == "" {
			errs = append(errs, field.Required(spec.Child("externalName"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(name) {
				errs = append(errs, field.Invalid(spec.Child("externalName"), name, msg))
			}
		}
	}
	for i, p := range svc.Spec.Ports {
		path := spec.Child("ports").Index(i).Child("nodePort")
		switch {
		case p.NodePort == 0:
		case svc.Spec.Type == corev1.ServiceTypeClusterIP:
			errs = append(errs, field.Forbidden(path, "may not be used when `type` is 'ClusterIP'"))
		default:
			for _, msg := range validation.IsValidPortNum(int(p.NodePort)) {
				errs = append(errs, field.Invalid(path, p.NodePort, msg))
			}
		}
	}
	for i, ip := range svc.Spec.ExternalIPs {
		errs = append(errs, validateExternalIP(ip, spec.Child("externalIPs").Index(i))...)
	}
	if ranges := svc.Spec.LoadBalancerSourceRanges; len(ranges) > 0 {
		path := spec.Child("LoadBalancerSourceRanges") // kube-apiserver's spelling
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
			errs = append(errs, field.Forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
		}
		for i, r := range ranges {
			errs = append(errs, validation.IsValidCIDRForLegacyField(path.Index(i), strings.TrimSpace(r), false, nil)...)
		}
	}
	accessible := externallyReached.Has(svc.Spec.Type) || svc.Spec.Type == corev1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0
	if p := svc.Spec.ExternalTrafficPolicy; p != "" {
		switch {
		case !accessible:
			errs = append(errs, field.Invalid(spec.Child("externalTrafficPolicy"), p, "may only be set for externally-accessible services"))
		case !sets.New(trafficPolicies...).Has(p):
			errs = append(errs, field.NotSupported(spec.Child("externalTrafficPolicy"), p, trafficPolicies))
		}
	}
	if p := svc.Spec.InternalTrafficPolicy; p != nil && !sets.New(internalPolicies...).Has(*p) {
		errs = append(errs, field.NotSupported(spec.Child("internalTrafficPolicy"), *p, internalPolicies))
	}
	if p := svc.Spec.IPFamilyPolicy; p != nil && !sets.New(ipFamilyPolicies...).Has(*p) {
		errs = append(errs, field.NotSupported(spec.Child("ipFamilyPolicy"), *p, ipFamilyPolicies))
	}
	seen := sets.New[corev1.IPFamily]()
	for i, f := range svc.Spec.IPFamilies {
		path := spec.Child("ipFamilies").Index(i)
		switch {
		case !sets.New(ipFamilies...).Has(f):
			errs = append(errs, field.NotSupported(path, f, ipFamilies))
		case seen.Has(f):
			errs = append(errs, field.Duplicate(path, f))
		}
		seen.Insert(f)
	}
	return errs
}

// validateClusterIPs: each of clusterIPs (or clusterIP alone, which
// kube-apiserver copies into clusterIPs before it validates) is an IP, or
// "None" alone; clusterIPs starts with clusterIP.
func validateClusterIPs(svc *corev1.Service, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	path := spec.Child("clusterIPs")
	if len(svc.Spec.ClusterIPs) > 0 && svc.Spec.ClusterIP != svc.Spec.ClusterIPs[0] {
		errs = append(errs, field.Invalid(path, svc.Spec.ClusterIPs, "first value must match `clusterIP`"))
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		if len(ips) > 0 {
			errs = append(errs, field.Forbidden(path, "may not be set for ExternalName services"))
		}
		return errs
	}
	for i, ip := range ips {
		switch {
		case ip == corev1.ClusterIPNone && i == 0:
			if len(ips) > 1 {
				errs = append(errs, field.Invalid(path, ips, "'None' must be the first and only value"))
			}
		case ip == corev1.ClusterIPNone:
			errs = append(errs, field.Invalid(path, ips, "'None' must be the first and only value"))
		default:
			errs = append(errs, validation.IsValidIP(path.Index(i), ip)...)
		}
	}
	if len(ips) > 2 {
		errs = append(errs, field.Invalid(path, ips, "may only hold up to 2 values"))
	}
	return errs
}

// validateExternalIP: an IP, and not one a Service cannot be reached at
// from outside (unspecified, loopback, link-local).
func validateExternalIP(value string, path *field.Path) field.ErrorList {
	if errs := validation.IsValidIPForLegacyField(path, value, false, nil); len(errs) > 0 {
		return errs
	}
	var errs field.ErrorList
	ip := net.ParseIP(value)
	if ip.IsUnspecified() {
		errs = append(errs, field.Invalid(path, value, "may not be unspecified ("+value+")"))
	}
	if ip.IsLoopback() {
		errs = append(errs, field.Invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(path, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}
