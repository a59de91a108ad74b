package service

//lint:file-ignore SA1019 kube32 serves core/v1 Endpoints, as the boards do (docs/kubectl.md), deprecated upstream since v1.33

import (
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// hasEndpoints reports whether the API server computes Endpoints and
// endpointSlices for svc: it has a selector and is not ExternalName, as
// with the upstream controllers.
func hasEndpoints(svc *corev1.Service) bool {
	return len(svc.Spec.Selector) > 0 && svc.Spec.Type != corev1.ServiceTypeExternalName
}

// backend is one selected pod and the target ports it resolves.
type backend struct {
	pod   *corev1.Pod
	ports []corev1.EndpointPort
}

// backends returns the pods of pods that svc selects and that may appear
// in its endpoints (Running; terminating ones only when withTerminating),
// each with its resolved ports. A pod that resolves none of the Service's
// ports is left out, as the upstream controllers do.
func backends(svc *corev1.Service, pods []*corev1.Pod, withTerminating bool) []backend {
	var out []backend
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" || !selects(svc, p) {
			continue
		}
		if p.DeletionTimestamp != nil && !withTerminating {
			continue
		}
		var ports []corev1.EndpointPort
		for _, sp := range svc.Spec.Ports {
			if target, ok := resolveTargetPort(sp, p); ok {
				ports = append(ports, corev1.EndpointPort{Name: sp.Name, Port: target, Protocol: protocol(sp.Protocol), AppProtocol: sp.AppProtocol})
			}
		}
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		out = append(out, backend{pod: p, ports: ports})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].pod.Status.PodIP != out[j].pod.Status.PodIP {
			return out[i].pod.Status.PodIP < out[j].pod.Status.PodIP
		}
		return out[i].pod.Name < out[j].pod.Name
	})
	return out
}

// portsKey identifies a set of resolved ports, for grouping.
func portsKey(ports []corev1.EndpointPort) string {
	var b strings.Builder
	for _, p := range ports {
		b.WriteString(p.Name + "/" + string(p.Protocol) + "/" + strconv.Itoa(int(p.Port)) + ";")
	}
	return b.String()
}

// endpoints computes svc's Endpoints from the pods of its namespace: one
// subset per set of resolved target ports, Ready pods in addresses and the
// others in notReadyAddresses, each with targetRef and nodeName.
// Terminating pods are left out. It returns nil for a Service without
// endpoints (see HasEndpoints).
func endpoints(svc *corev1.Service, pods []*corev1.Pod) *corev1.Endpoints {
	if !hasEndpoints(svc) {
		return nil
	}
	ep := &corev1.Endpoints{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: kinds.Endpoints},
		ObjectMeta: metav1.ObjectMeta{
			Name: svc.Name, Namespace: svc.Namespace, Labels: endpointLabels(svc),
			CreationTimestamp: svc.CreationTimestamp, ResourceVersion: svc.ResourceVersion,
			UID: types.UID(derivedUID(svc, "endpoints")),
		},
	}
	index := map[string]int{}
	for _, b := range backends(svc, pods, false) {
		key := portsKey(b.ports)
		i, ok := index[key]
		if !ok {
			i = len(ep.Subsets)
			index[key] = i
			ep.Subsets = append(ep.Subsets, corev1.EndpointSubset{Ports: b.ports})
		}
		addr := endpointAddress(b.pod)
		if Ready(b.pod) {
			ep.Subsets[i].Addresses = append(ep.Subsets[i].Addresses, addr)
		} else {
			ep.Subsets[i].NotReadyAddresses = append(ep.Subsets[i].NotReadyAddresses, addr)
		}
	}
	return ep
}

func endpointAddress(p *corev1.Pod) corev1.EndpointAddress {
	node := p.Spec.NodeName
	return corev1.EndpointAddress{IP: p.Status.PodIP, NodeName: &node, TargetRef: podRef(p)}
}

func podRef(p *corev1.Pod) *corev1.ObjectReference {
	return &corev1.ObjectReference{Kind: kinds.Pod, Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// endpointLabels are the Service's labels, plus the headless mark upstream
// adds for clusterIP: None.
func endpointLabels(svc *corev1.Service) map[string]string {
	out := map[string]string{}
	for k, v := range svc.Labels {
		out[k] = v
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		out[corev1.IsHeadlessService] = ""
	}
	return out
}

// EndpointsOf computes svc's Endpoints from pods, the pods of its
// namespace, as the store's are computed; nil for a Service without
// endpoints. A kube32 node on a Kubernetes cluster computes them so, since
// that cluster's controllers keep node-local addresses out of theirs.
func EndpointsOf(svc *corev1.Service, pods []*corev1.Pod) *corev1.Endpoints {
	return endpoints(svc, pods)
}

// NamespaceEndpoints lists the Endpoints of every Service of namespace (""
// for all), computed from the store as it is.
func NamespaceEndpoints(s *store.Store, namespace string) []*corev1.Endpoints {
	services := s.List(kinds.Service, namespace)
	var pods map[string][]*corev1.Pod
	var out []*corev1.Endpoints
	for _, o := range services {
		svc := o.(*corev1.Service)
		if !hasEndpoints(svc) {
			continue
		}
		if pods == nil { // only when some Service has endpoints: a pod's start asks too
			pods = podsByNamespace(s, namespace)
		}
		out = append(out, endpoints(svc, pods[svc.Namespace]))
	}
	return out
}

func podsByNamespace(s *store.Store, namespace string) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	// Read only: Endpoints copy what they take from a pod.
	pods, _ := s.ListShared(kinds.Pod, namespace)
	for _, o := range pods {
		p := o.(*corev1.Pod)
		out[p.Namespace] = append(out[p.Namespace], p)
	}
	return out
}
