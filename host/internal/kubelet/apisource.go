//lint:file-ignore SA1019 the kubelet reads core/v1 Endpoints, as the boards serve them (docs/kubectl.md)

package kubelet

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/store"
)

// NewAPISource returns the Source of a worker: the API server at server
// (http://host:port), with the bearer token when it is not empty. It keeps
// the node's pods with a list and a watch (spec.nodeName=<node>) and
// fetches Services, Endpoints and Nodes with a cache of abi.APICacheTTL.
func NewAPISource(server, token string) (Source, error) {
	cfg := &rest.Config{Host: server, BearerToken: token, QPS: 200, Burst: 400, Timeout: 30 * time.Second}
	client, err := newAPIClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("API server %s: %w", server, err)
	}
	return newAPISource(client), nil
}

func newAPISource(client *apiClient) *apiSource {
	return &apiSource{client: client, pods: map[string]*corev1.Pod{}, cache: map[string]cached{}}
}

type apiSource struct {
	client *apiClient

	mu     sync.Mutex
	pods   map[string]*corev1.Pod // the node's pods by "namespace/name"
	synced bool                   // the first list has arrived

	cacheMu sync.Mutex
	cache   map[string]cached

	statusMu sync.Mutex // one status write at a time, so the latest wins

	netpol apiPolicies // what the node knows for NetworkPolicy

	// endpointsFromPods: Services' Endpoints are computed from the pods
	// (a node of a Kubernetes cluster, apisource_k8s.go), not read.
	endpointsFromPods bool
	// taintsAtCreate: the node's taints are set when its Node is created
	// and never changed (a node of a Kubernetes cluster, mergeNode).
	taintsAtCreate bool

	events eventCache // the Events this node wrote last, to count again
}

// cached is an API answer and when it was fetched.
type cached struct {
	at  time.Time
	obj any
	err error
}

func (s *apiSource) RegisterNode(ctx context.Context, n *corev1.Node) error {
	nodes := s.client.nodes()
	_, err := nodes.Create(ctx, n, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	cur, err := nodes.Get(ctx, n.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	n = mergeNode(cur, n, s.taintsAtCreate)
	updated, err := nodes.Update(ctx, n, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	n.ResourceVersion = updated.ResourceVersion
	_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
	return err
}

// RenewLease renews the Lease through the API, creating it when the
// control plane has none (it restarted, or someone deleted it), and reads
// the Node afresh, past the cache: a Node gone is what a restarted
// control plane looks like.
func (s *apiSource) RenewLease(ctx context.Context, lease *coordinationv1.Lease) (*corev1.Node, error) {
	leases := s.client.leases(lease.Namespace)
	cur, err := leases.Get(ctx, lease.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = leases.Create(ctx, lease, metav1.CreateOptions{})
	case err == nil:
		cur.Spec = lease.Spec
		_, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("renewing lease %s/%s: %w", lease.Namespace, lease.Name, err)
	}
	n, err := s.client.nodes().Get(ctx, lease.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return n, err
}

// mergeNode is the Node to write over cur when the node registers again:
// its own labels, annotations and taints over those others put on cur
// (kubectl label, the node lifecycle controller's taints), which stay.
// With taintsAtCreate (a node of a Kubernetes cluster) cur's taints stay
// exactly as they are: kube-apiserver's NodeRestriction forbids a node to
// change its own taints, which a kubelet sets only when it creates its
// Node. cur's owner references stay, which NodeRestriction keeps too.
func mergeNode(cur, n *corev1.Node, taintsAtCreate bool) *corev1.Node {
	out := n.DeepCopy()
	out.ResourceVersion = cur.ResourceVersion
	out.OwnerReferences = cur.OwnerReferences
	out.Labels = maps.Clone(cur.Labels)
	out.Annotations = maps.Clone(cur.Annotations)
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	maps.Copy(out.Labels, n.Labels)
	maps.Copy(out.Annotations, n.Annotations)
	out.Spec = *cur.Spec.DeepCopy()
	if taintsAtCreate {
		return out
	}
	out.Spec.Taints = nil
	for _, t := range cur.Spec.Taints {
		if !slices.ContainsFunc(n.Spec.Taints, func(o corev1.Taint) bool { return t.MatchTaint(&o) }) {
			out.Spec.Taints = append(out.Spec.Taints, t)
		}
	}
	out.Spec.Taints = append(out.Spec.Taints, n.Spec.Taints...)
	return out
}

func (s *apiSource) Pods(string) []*corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*corev1.Pod, 0, len(s.pods))
	for _, p := range s.pods {
		out = append(out, p)
	}
	return out
}

// Synced reports whether the node's pods were listed once: before that,
// Pods knows none and the kubelet cannot be settled.
func (s *apiSource) Synced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.synced
}

// Changes lists and watches the node's pods until ctx ends, listing again
// whenever the watch ends.
func (s *apiSource) Changes(ctx context.Context, node string) <-chan struct{} {
	out := make(chan struct{}, 1)
	signal := func() {
		select {
		case out <- struct{}{}:
		default:
		}
	}
	opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()}
	go s.refreshPolicies(ctx)
	go func() {
		for ctx.Err() == nil {
			if err := s.listAndWatch(ctx, opts, signal); err != nil && ctx.Err() == nil {
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
	return out
}

func (s *apiSource) listAndWatch(ctx context.Context, opts metav1.ListOptions, signal func()) error {
	pods := s.client.pods("")
	list, err := pods.List(ctx, opts)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.pods = map[string]*corev1.Pod{}
	for i := range list.Items {
		p := &list.Items[i]
		s.pods[p.Namespace+"/"+p.Name] = p
	}
	s.synced = true
	s.mu.Unlock()
	signal()
	opts.ResourceVersion = list.ResourceVersion
	w, err := pods.Watch(ctx, opts)
	if err != nil {
		return err
	}
	defer w.Stop()
	for e := range w.ResultChan() {
		p, ok := e.Object.(*corev1.Pod)
		if !ok {
			return fmt.Errorf("watch of pods: %v", e.Object)
		}
		s.mu.Lock()
		switch e.Type {
		case watch.Added, watch.Modified:
			s.pods[p.Namespace+"/"+p.Name] = p
		case watch.Deleted:
			delete(s.pods, p.Namespace+"/"+p.Name)
		}
		s.mu.Unlock()
		signal()
	}
	return nil
}

func (s *apiSource) UpdatePodStatus(ctx context.Context, namespace, name string, uid types.UID, generation int64, change func(*corev1.Pod)) error {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	pods := s.client.pods(namespace)
	for attempt := 0; attempt < 5; attempt++ {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.UID != uid || p.Generation != generation {
			return nil
		}
		change(p)
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("pod %s/%s: status update kept conflicting", namespace, name)
}

func (s *apiSource) DeletePod(ctx context.Context, namespace, name string, uid types.UID) error {
	zero := int64(0)
	return s.client.pods(namespace).Delete(ctx, name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid},
	})
}

// Record writes the Event as the store's Record does (store.PodEvent), over
// the API: a repeat counts again on the Event that exists. Best effort, and
// bounded, so that a slow API server never holds up the pod it is about.
func (s *apiSource) Record(p *corev1.Pod, from store.EventSource, typ, reason, message string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	events := s.client.events(p.Namespace)
	e := store.PodEvent(p, from, typ, reason, message, metav1.Now())
	if old, ok := s.events.get(e.Namespace, e.Name); ok {
		store.CountAgain(old, e.LastTimestamp)
		updated, err := events.Update(ctx, old, metav1.UpdateOptions{})
		if err == nil {
			s.events.put(updated)
			return
		}
		s.events.forget(e.Namespace, e.Name)
		if !apierrors.IsNotFound(err) {
			return // a conflict loses one count, as kubelets may
		}
		// Gone (Events expire): written anew.
	}
	created, err := events.Create(ctx, e, metav1.CreateOptions{})
	if err == nil {
		s.events.put(created)
		return
	}
	if !apierrors.IsAlreadyExists(err) {
		return
	}
	// Written before the node last started: counted again where the
	// cluster lets the node read it (a Kubernetes cluster's Node
	// authorizer does not, and the repeat goes uncounted).
	old, err := events.Get(ctx, e.Name, metav1.GetOptions{})
	if err != nil {
		return
	}
	store.CountAgain(old, e.LastTimestamp)
	if updated, err := events.Update(ctx, old, metav1.UpdateOptions{}); err == nil {
		s.events.put(updated)
	}
}

func (s *apiSource) NamespaceServices(namespace string) ([]*corev1.Service, []*corev1.Endpoints) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var services []*corev1.Service
	if list, err := s.client.services(namespace).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range list.Items {
			services = append(services, &list.Items[i])
		}
	}
	var endpoints []*corev1.Endpoints
	if s.endpointsFromPods {
		for _, svc := range services {
			if ep, err := s.podEndpoints(ctx, svc); err == nil && ep != nil {
				endpoints = append(endpoints, ep)
			}
		}
		return services, endpoints
	}
	if list, err := s.client.endpoints(namespace).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range list.Items {
			endpoints = append(endpoints, &list.Items[i])
		}
	}
	return services, endpoints
}

// fetch returns what get answers for key, from the cache while it is
// younger than abi.APICacheTTL.
func (s *apiSource) fetch(key string, get func() (any, error)) (any, error) {
	s.cacheMu.Lock()
	c, ok := s.cache[key]
	s.cacheMu.Unlock()
	if ok && time.Since(c.at) < abi.APICacheTTL {
		return c.obj, c.err
	}
	obj, err := get()
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, err // not cached: the next call tries again
	}
	s.cacheMu.Lock()
	s.cache[key] = cached{at: time.Now(), obj: obj, err: err}
	s.cacheMu.Unlock()
	return obj, err
}

// Service implements service.Objects, through the cache.
func (s *apiSource) Service(ctx context.Context, namespace, name string) (*corev1.Service, error) {
	obj, err := s.fetch("svc/"+namespace+"/"+name, func() (any, error) {
		return s.client.services(namespace).Get(ctx, name, metav1.GetOptions{})
	})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("service %s/%s: %w", namespace, name, service.ErrNoService)
	}
	if err != nil {
		return nil, fmt.Errorf("service %s/%s: %v: %w", namespace, name, err, abi.ErrIO)
	}
	return obj.(*corev1.Service), nil
}

// Endpoints implements service.Objects, through the cache: the API server
// computes them as the control plane resolves its own calls.
func (s *apiSource) Endpoints(ctx context.Context, svc *corev1.Service) (*corev1.Endpoints, error) {
	if s.endpointsFromPods {
		return s.podEndpoints(ctx, svc)
	}
	obj, err := s.fetch("ep/"+svc.Namespace+"/"+svc.Name, func() (any, error) {
		return s.client.endpoints(svc.Namespace).Get(ctx, svc.Name, metav1.GetOptions{})
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("endpoints %s/%s: %v: %w", svc.Namespace, svc.Name, err, abi.ErrIO)
	}
	return obj.(*corev1.Endpoints), nil
}

// Node implements service.Objects, through the cache.
func (s *apiSource) Node(ctx context.Context, name string) (*corev1.Node, error) {
	obj, err := s.fetch("node/"+name, func() (any, error) {
		return s.client.nodes().Get(ctx, name, metav1.GetOptions{})
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	return obj.(*corev1.Node), nil
}
