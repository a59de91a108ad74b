package call

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/service"
	"github.com/kube32/kube32/host/store"
)

// StoreResolver resolves Services from the control plane's object store.
// It keeps what it resolved until the store changes (a Service, Pod or
// Node among the changes), so a busy caller does not scan the pods on
// every call.
type StoreResolver struct {
	Store *store.Store

	mu      sync.Mutex
	version int64
	cache   map[string]resolved
}

// resolved is a cached answer of Resolve.
type resolved struct {
	backends []Backend
	err      error
}

var _ Resolver = (*StoreResolver)(nil)

// Resolve implements Resolver.
func (r *StoreResolver) Resolve(_ context.Context, namespace, name string, port int) ([]Backend, error) {
	key := namespace + "/" + name + ":" + strconv.Itoa(port)
	version := r.Store.Version()
	r.mu.Lock()
	if r.version != version {
		r.version, r.cache = version, map[string]resolved{}
	}
	res, ok := r.cache[key]
	r.mu.Unlock()
	if ok {
		return res.backends, res.err
	}
	res.backends, res.err = r.resolve(namespace, name, port)
	r.mu.Lock()
	if r.version == version {
		r.cache[key] = res
	}
	r.mu.Unlock()
	return res.backends, res.err
}

func (r *StoreResolver) resolve(namespace, name string, port int) ([]Backend, error) {
	obj, ok := r.Store.Get(store.Key{Kind: "Service", Namespace: namespace, Name: name})
	if !ok {
		return nil, fmt.Errorf("service %s/%s: %w", namespace, name, ErrNoService)
	}
	svc := obj.(*corev1.Service)
	sp, ok := ServicePort(svc, port)
	if !ok {
		return nil, abi.ErrNoEnt
	}
	var out []Backend
	for _, p := range service.SelectPods(r.Store, svc) {
		if !service.Ready(p) {
			continue
		}
		target, ok := service.ResolveTargetPort(sp, p)
		if !ok {
			continue
		}
		addr := r.nodeAddr(p.Spec.NodeName)
		ip := p.Status.PodIP
		if ip == "" {
			ip, _, _ = net.SplitHostPort(addr) // pods share their node's address
		}
		out = append(out, Backend{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName, Addr: addr, IP: ip, Port: target})
	}
	return out, nil
}

// nodeAddr is the pod HTTP server of a node, from its Node object.
func (r *StoreResolver) nodeAddr(name string) string {
	obj, ok := r.Store.Get(store.Key{Kind: "Node", Name: name})
	if !ok {
		return ""
	}
	return NodeAddr(obj.(*corev1.Node))
}

// NodeAddr is a node's pod HTTP server, "<InternalIP>:<kubelet endpoint
// port>", as its Node object reports it; "" when it reports none.
func NodeAddr(n *corev1.Node) string {
	port := n.Status.DaemonEndpoints.KubeletEndpoint.Port
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && port != 0 {
			return net.JoinHostPort(a.Address, strconv.Itoa(int(port)))
		}
	}
	return ""
}

// ServicePort is the Service's port number port, its first port for 0.
func ServicePort(svc *corev1.Service, port int) (corev1.ServicePort, bool) {
	if len(svc.Spec.Ports) == 0 {
		return corev1.ServicePort{}, false
	}
	if port == 0 {
		return svc.Spec.Ports[0], true
	}
	for _, sp := range svc.Spec.Ports {
		if int(sp.Port) == port {
			return sp, true
		}
	}
	return corev1.ServicePort{}, false
}
