package service

//lint:file-ignore SA1019 workers read core/v1 Endpoints, as the boards serve them

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
)

// Errors of Resolve, possibly wrapped.
var (
	// ErrNoService: no such Service exists.
	ErrNoService = errors.New("no such Service")
	// ErrNoPort: the Service has no such port.
	ErrNoPort = errors.New("no such Service port")
)

// Objects is where Resolve reads the cluster's objects: the control
// plane's object store (StoreObjects), or on a worker the API server
// through its cache. The objects it returns are shared: read them only.
type Objects interface {
	// Service returns the Service namespace/name, or ErrNoService.
	Service(ctx context.Context, namespace, name string) (*corev1.Service, error)
	// endpoints returns svc's Endpoints, as Endpoints computes them; nil
	// when it has none.
	Endpoints(ctx context.Context, svc *corev1.Service) (*corev1.Endpoints, error)
	// Node returns the Node name; nil when the cluster knows none.
	Node(ctx context.Context, name string) (*corev1.Node, error)
}

// Backend is one pod behind a Service port, and how to reach it.
type Backend struct {
	Namespace, Name string
	// Node is the node the pod runs on; Addr that node's pod HTTP server
	// (see NodeAddr), "" when the node reports none.
	Node, Addr string
	// IP is the pod's IP (its node's address) and Port the Service port's
	// target port on the pod, which NetworkPolicy rules compare.
	IP   string
	Port int32
	// Ready is the pod's Ready condition: calls go to ready pods only,
	// the Ingress to every running one.
	Ready bool
}

// ID is the pod as a call chain and abi.HeaderPod name it, "<namespace>/<name>".
func (b Backend) ID() string { return abi.PodID(b.Namespace, b.Name) }

// PortRef names a Service port: by Name when set, else by Number, else
// (both unset) the Service's first port.
type PortRef struct {
	Name   string
	Number int32
}

// Resolve returns the Running, non-terminating pods behind a port of the
// Service namespace/name, ready or not (see Backend.Ready), in a stable
// order, with the port's target port on each and its node's address. It
// fails with ErrNoService or ErrNoPort; a Service that selects no pod is an
// empty list. The pods and ports are those of the Service's Endpoints, so
// every node resolves a Service as the API server serves it.
func Resolve(ctx context.Context, objs Objects, namespace, name string, ref PortRef) ([]Backend, error) {
	svc, err := objs.Service(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	sp, err := servicePort(svc, ref)
	if err != nil {
		return nil, err
	}
	ep, err := objs.Endpoints(ctx, svc)
	if err != nil || ep == nil {
		return nil, err
	}
	var out []Backend
	for _, subset := range ep.Subsets {
		target, ok := subsetPort(subset.Ports, sp.Name)
		if !ok {
			continue
		}
		for _, addrs := range []struct {
			list  []corev1.EndpointAddress
			ready bool
		}{{subset.Addresses, true}, {subset.NotReadyAddresses, false}} {
			for _, a := range addrs.list {
				if a.TargetRef == nil || a.NodeName == nil {
					continue // not a pod of this cluster's making
				}
				b := Backend{Namespace: namespace, Name: a.TargetRef.Name, Node: *a.NodeName, IP: a.IP, Port: target, Ready: addrs.ready}
				if n, err := objs.Node(ctx, b.Node); err == nil && n != nil {
					b.Addr = NodeAddr(n)
				}
				out = append(out, b)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// servicePort finds the Service port ref names.
func servicePort(svc *corev1.Service, ref PortRef) (corev1.ServicePort, error) {
	for i, sp := range svc.Spec.Ports {
		switch {
		case ref.Name != "":
			if sp.Name == ref.Name {
				return sp, nil
			}
		case ref.Number != 0:
			if sp.Port == ref.Number {
				return sp, nil
			}
		case i == 0:
			return sp, nil
		}
	}
	switch {
	case ref.Name != "":
		return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port named %q: %w", svc.Namespace, svc.Name, ref.Name, ErrNoPort)
	case ref.Number != 0:
		return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port %d: %w", svc.Namespace, svc.Name, ref.Number, ErrNoPort)
	}
	return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port: %w", svc.Namespace, svc.Name, ErrNoPort)
}

// subsetPort is the target port of the Service port named name in an
// endpoints subset (ports match by name, as kube-proxy matches them; a
// lone unnamed port has ""), and whether the subset serves it.
func subsetPort(ports []corev1.EndpointPort, name string) (int32, bool) {
	for _, p := range ports {
		if p.Name == name {
			return p.Port, true
		}
	}
	return 0, false
}

// NodeAddr is a node's pod HTTP server, "<InternalIP>:<port>", as its Node
// object reports it: the port is abi.AnnotationPodPort's on a Kubernetes
// cluster, where the kubelet endpoint is the kubelet API, else the kubelet
// endpoint's, as the boards report it. "" when it reports none.
func NodeAddr(n *corev1.Node) string {
	port := n.Status.DaemonEndpoints.KubeletEndpoint.Port
	if v, ok := n.Annotations[abi.AnnotationPodPort]; ok {
		p, err := strconv.ParseUint(v, 10, 16)
		if err != nil {
			return ""
		}
		port = int32(p)
	}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && port != 0 {
			return net.JoinHostPort(a.Address, strconv.Itoa(int(port)))
		}
	}
	return ""
}

// LocalPods are the pods running on this node, which a backend on this
// node is called through in-process, without a network hop.
type LocalPods interface {
	// Handler returns the in-process handler of the pod namespace/name,
	// false when it does not run here (or no longer).
	Handler(namespace, name string) (http.Handler, bool)
}

// RoundRobin hands out a Service's backends in turn. The zero RoundRobin
// is ready to use; it is safe for concurrent use.
type RoundRobin struct{ next atomic.Uint64 }

// Next returns the index of the next of n backends (n > 0).
func (r *RoundRobin) Next(n int) int { return int((r.next.Add(1) - 1) % uint64(n)) }
