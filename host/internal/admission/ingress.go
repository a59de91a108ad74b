package admission

import (
	"net"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Path rules of kube-apiserver for Exact and Prefix paths.
var (
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
)

// validateIngress checks an Ingress as kube-apiserver does: pathType
// required, the path rules of Exact and Prefix, exactly one of service or
// resource per backend, a named service with exactly one of port name or
// number, and rule hosts that are DNS names or single-label wildcards.
func validateIngress(ing *networkingv1.Ingress) field.ErrorList {
	errs := validateMeta(ing, true, nameIsDNSSubdomain)
	spec := field.NewPath("spec")
	if cls := ing.Spec.IngressClassName; cls != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*cls) {
			errs = append(errs, field.Invalid(spec.Child("ingressClassName"), *cls, msg))
		}
	}
	if b := ing.Spec.DefaultBackend; b != nil {
		errs = append(errs, validateIngressBackend(b, spec.Child("defaultBackend"))...)
	}
	if len(ing.Spec.Rules) == 0 && ing.Spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(spec, "", "either `defaultBackend` or `rules` must be specified"))
	}
	errs = append(errs, validateIngressTLS(ing.Spec.TLS, spec.Child("tls"))...)
	for i, rule := range ing.Spec.Rules {
		rulePath := spec.Child("rules").Index(i)
		if rule.Host != "" {
			errs = append(errs, validateIngressHost(rule.Host, rulePath.Child("host"))...)
		}
		if rule.HTTP == nil {
			continue
		}
		paths := rulePath.Child("http", "paths")
		if len(rule.HTTP.Paths) == 0 {
			errs = append(errs, field.Required(paths, ""))
		}
		for j, p := range rule.HTTP.Paths {
			errs = append(errs, validateIngressPath(p, paths.Index(j))...)
		}
	}
	return errs
}

// validateIngressTLS: TLS hosts are DNS names or single-label wildcards,
// secret names DNS subdomains, as kube-apiserver checks them.
func validateIngressTLS(tls []networkingv1.IngressTLS, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tls {
		for j, host := range t.Hosts {
			hostPath := path.Index(i).Child("hosts").Index(j)
			check := validation.IsDNS1123Subdomain
			if strings.Contains(host, "*") {
				check = validation.IsWildcardDNS1123Subdomain
			}
			for _, msg := range check(host) {
				errs = append(errs, field.Invalid(hostPath, host, msg))
			}
		}
		if t.SecretName != "" {
			for _, msg := range nameIsDNSSubdomain(t.SecretName, false) {
				errs = append(errs, field.Invalid(path.Index(i).Child("secretName"), t.SecretName, msg))
			}
		}
	}
	return errs
}

func validateIngressHost(host string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if net.ParseIP(host) != nil {
		return append(errs, field.Invalid(path, host, "must be a DNS name, not an IP address"))
	}
	if strings.Contains(host, "*") {
		for _, msg := range validation.IsWildcardDNS1123Subdomain(host) {
			errs = append(errs, field.Invalid(path, host, msg))
		}
		return errs
	}
	for _, msg := range validation.IsDNS1123Subdomain(host) {
		errs = append(errs, field.Invalid(path, host, msg))
	}
	return errs
}

func validateIngressPath(p networkingv1.HTTPIngressPath, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p.PathType == nil {
		errs = append(errs, field.Required(path.Child("pathType"), "pathType must be specified"))
	} else {
		switch *p.PathType {
		case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
			if !strings.HasPrefix(p.Path, "/") {
				errs = append(errs, field.Invalid(path.Child("path"), p.Path, "must be an absolute path"))
			}
			for _, seq := range invalidPathSequences {
				if strings.Contains(p.Path, seq) {
					errs = append(errs, field.Invalid(path.Child("path"), p.Path, "must not contain '"+seq+"'"))
				}
			}
			for _, suffix := range invalidPathSuffixes {
				if strings.HasSuffix(p.Path, suffix) {
					errs = append(errs, field.Invalid(path.Child("path"), p.Path, "cannot end with '"+suffix+"'"))
				}
			}
		case networkingv1.PathTypeImplementationSpecific:
			if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
				errs = append(errs, field.Invalid(path.Child("path"), p.Path, "must be an absolute path"))
			}
		default:
			errs = append(errs, field.NotSupported(path.Child("pathType"), *p.PathType,
				[]string{"Exact", "Prefix", "ImplementationSpecific"}))
		}
	}
	return append(errs, validateIngressBackend(&p.Backend, path.Child("backend"))...)
}

func validateIngressBackend(b *networkingv1.IngressBackend, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case b.Service != nil && b.Resource != nil:
		return append(errs, field.Invalid(path, "", "cannot set both service and resource backends"))
	case b.Service == nil && b.Resource == nil:
		return append(errs, field.Invalid(path, "", "one backend type must be specified"))
	case b.Resource != nil:
		if b.Resource.Kind == "" {
			errs = append(errs, field.Required(path.Child("resource", "kind"), ""))
		}
		if b.Resource.Name == "" {
			errs = append(errs, field.Required(path.Child("resource", "name"), ""))
		}
		return errs
	}
	svc := path.Child("service")
	if b.Service.Name == "" {
		errs = append(errs, field.Required(svc.Child("name"), ""))
	} else {
		for _, msg := range validation.IsDNS1035Label(b.Service.Name) {
			errs = append(errs, field.Invalid(svc.Child("name"), b.Service.Name, msg))
		}
	}
	port := svc.Child("port")
	switch name, number := b.Service.Port.Name, b.Service.Port.Number; {
	case name != "" && number != 0:
		errs = append(errs, field.Invalid(port, "", "cannot set both port name & port number"))
	case name != "":
		for _, msg := range validation.IsValidPortName(name) {
			errs = append(errs, field.Invalid(port.Child("name"), name, msg))
		}
	case number != 0:
		for _, msg := range validation.IsValidPortNum(int(number)) {
			errs = append(errs, field.Invalid(port.Child("number"), number, msg))
		}
	default:
		errs = append(errs, field.Required(port, "port name or number is required"))
	}
	return errs
}
