package service

import (
	"fmt"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// Labels the upstream EndpointSlice controller sets.
const (
	labelManagedBy = "endpointslice.kubernetes.io/managed-by"
	managedBy      = "endpointslice-controller.k8s.io"
)

// endpointSlices computes svc's EndpointSlices: addressType IPv4, one slice
// per set of resolved target ports (one empty slice when nothing is
// selected), labelled abi.LabelServiceName, owned by the Service, with
// conditions as the upstream controller sets them: serving = the pod is
// Ready, ready = serving and not terminating, terminating = the pod has a
// deletionTimestamp. Slice names are stable: <service>-<hash>.
func endpointSlices(svc *corev1.Service, pods []*corev1.Pod) []*discoveryv1.EndpointSlice {
	if !hasEndpoints(svc) {
		return nil
	}
	var slices []*discoveryv1.EndpointSlice
	index := map[string]int{}
	for _, b := range backends(svc, pods, true) {
		key := portsKey(b.ports)
		i, ok := index[key]
		if !ok {
			i = len(slices)
			index[key] = i
			slices = append(slices, newSlice(svc, key, b.ports))
		}
		serving := Ready(b.pod)
		terminating := b.pod.DeletionTimestamp != nil
		ready := serving && !terminating
		node := b.pod.Spec.NodeName
		slices[i].Endpoints = append(slices[i].Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{b.pod.Status.PodIP},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
			TargetRef:  podRef(b.pod),
			NodeName:   &node,
		})
	}
	if len(slices) == 0 {
		slices = append(slices, newSlice(svc, "", nil))
	}
	return slices
}

func newSlice(svc *corev1.Service, key string, ports []corev1.EndpointPort) *discoveryv1.EndpointSlice {
	labels := endpointLabels(svc)
	labels[discoveryv1.LabelServiceName] = svc.Name
	labels[labelManagedBy] = managedBy
	yes := true
	slice := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: kinds.EndpointSlice},
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%s", svc.Name, suffix(string(svc.UID)+"/"+key)), Namespace: svc.Namespace,
			Labels: labels, CreationTimestamp: svc.CreationTimestamp, ResourceVersion: svc.ResourceVersion,
			UID: types.UID(derivedUID(svc, "endpointslice/"+key)),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: kinds.Service, Name: svc.Name, UID: svc.UID, Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{},
	}
	for _, p := range ports {
		name, port, proto := p.Name, p.Port, p.Protocol
		slice.Ports = append(slice.Ports, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &proto, AppProtocol: p.AppProtocol})
	}
	return slice
}

// suffix is five lowercase letters and digits derived from s, like the
// random suffix of a generated name but stable across reads.
func suffix(s string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789" // the alphabet of apimachinery's generated names
	h := fnv.New64a()
	h.Write([]byte(s))
	n := h.Sum64()
	out := make([]byte, 5)
	for i := range out {
		out[i] = alphabet[n%uint64(len(alphabet))]
		n /= uint64(len(alphabet))
	}
	return string(out)
}

// derivedUID is a stable uid for an object computed from svc.
func derivedUID(svc *corev1.Service, what string) string {
	h := fnv.New128a()
	h.Write([]byte(string(svc.UID) + "/" + what))
	b := h.Sum(nil)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NamespaceEndpointSlices lists the EndpointSlices of every Service of
// namespace ("" for all), computed from the store as it is.
func NamespaceEndpointSlices(s *store.Store, namespace string) []*discoveryv1.EndpointSlice {
	pods := podsByNamespace(s, namespace)
	var out []*discoveryv1.EndpointSlice
	for _, o := range s.List(kinds.Service, namespace) {
		svc := o.(*corev1.Service)
		out = append(out, endpointSlices(svc, pods[svc.Namespace])...)
	}
	return out
}
