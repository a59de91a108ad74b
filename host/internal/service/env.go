package service

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, as the boards do (docs/kubectl.md), deprecated upstream since v1.33

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// envName is kubelet's conversion of a Service or port name into a
// variable name: "-" becomes "_", letters go uppercase.
func envName(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// LinksEnabled reports whether p gets Service variables (enableServiceLinks
// is unset or true).
func LinksEnabled(p *corev1.Pod) bool {
	return p.Spec.EnableServiceLinks == nil || *p.Spec.EnableServiceLinks
}

// injected reports whether svc gives variables to pods of its namespace:
// it has a selector and is neither headless nor ExternalName.
func injected(svc *corev1.Service) bool {
	return len(svc.Spec.Selector) > 0 && svc.Spec.ClusterIP != corev1.ClusterIPNone && svc.Spec.Type != corev1.ServiceTypeExternalName
}

// EnvVars returns the Service variables of a starting pod p, as
// docs/kubectl.md ("Services, Endpoints and environment variables") sets them
// out, from the namespace's Services and Endpoints read as two lists (as the
// kubelet on a board reads them, one item at a time). For each Service that
// Injected accepts, in list order: the host is the node's IP when the Service
// selects p itself, or else the first ready address of its endpoints; the
// ports are the target ports resolved for p, or else those of that address's
// subset, matched to the Service's ports by name. A Service with no host or
// no resolved port gives no variables. The result is empty when p disables
// service links.
func EnvVars(p *corev1.Pod, services []*corev1.Service, endpoints []*corev1.Endpoints, nodeIP string) []corev1.EnvVar {
	if !LinksEnabled(p) {
		return nil
	}
	byName := map[string]*corev1.Endpoints{}
	for _, ep := range endpoints {
		if ep.Namespace == p.Namespace {
			byName[ep.Name] = ep
		}
	}
	var env []corev1.EnvVar
	for _, svc := range services {
		if svc.Namespace != p.Namespace || !injected(svc) {
			continue
		}
		host, ports := serviceTarget(svc, p, byName[svc.Name], nodeIP)
		if host == "" || len(ports) == 0 {
			continue
		}
		env = append(env, serviceVars(svc.Name, host, ports)...)
	}
	return env
}

// resolvedPort is a Service port and the target port it resolved to.
type resolvedPort struct {
	corev1.ServicePort
	target int32
}

func serviceTarget(svc *corev1.Service, p *corev1.Pod, ep *corev1.Endpoints, nodeIP string) (string, []resolvedPort) {
	var ports []resolvedPort
	if selects(svc, p) {
		for _, sp := range svc.Spec.Ports {
			if target, ok := resolveTargetPort(sp, p); ok {
				ports = append(ports, resolvedPort{sp, target})
			}
		}
		return nodeIP, ports
	}
	if ep == nil {
		return "", nil
	}
	for _, subset := range ep.Subsets {
		if len(subset.Addresses) == 0 {
			continue
		}
		for _, sp := range svc.Spec.Ports {
			for _, epp := range subset.Ports {
				if epp.Name == sp.Name && protocol(epp.Protocol) == protocol(sp.Protocol) {
					ports = append(ports, resolvedPort{sp, epp.Port})
					break
				}
			}
		}
		return subset.Addresses[0].IP, ports
	}
	return "", nil
}

// serviceVars are the variables of one Service, in kubelet's order.
func serviceVars(name, host string, ports []resolvedPort) []corev1.EnvVar {
	svc := envName(name)
	env := []corev1.EnvVar{
		{Name: svc + "_SERVICE_HOST", Value: host},
		{Name: svc + "_SERVICE_PORT", Value: strconv.Itoa(int(ports[0].target))},
	}
	for _, p := range ports {
		if p.Name != "" {
			env = append(env, corev1.EnvVar{Name: svc + "_SERVICE_PORT_" + envName(p.Name), Value: strconv.Itoa(int(p.target))})
		}
	}
	for i, p := range ports {
		proto := strings.ToLower(string(protocol(p.Protocol)))
		target := strconv.Itoa(int(p.target))
		url := proto + "://" + host + ":" + target
		if i == 0 {
			env = append(env, corev1.EnvVar{Name: svc + "_PORT", Value: url})
		}
		prefix := svc + "_PORT_" + strconv.Itoa(int(p.Port)) + "_" + strings.ToUpper(proto)
		env = append(env,
			corev1.EnvVar{Name: prefix, Value: url},
			corev1.EnvVar{Name: prefix + "_PROTO", Value: proto},
			corev1.EnvVar{Name: prefix + "_PORT", Value: target},
			corev1.EnvVar{Name: prefix + "_ADDR", Value: host},
		)
	}
	return env
}
