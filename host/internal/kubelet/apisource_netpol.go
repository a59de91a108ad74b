package kubelet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// apiPolicies is what a worker knows for NetworkPolicy: the labels of the
// node's pods, recorded at every pod sync, and the policies of the
// namespaces of those pods, loaded before the first pod of a namespace
// starts and listed again every abi.PolicyRelist. Pods behind Services and
// namespaces are read through the Source's cache (abi.APICacheTTL) when a rule needs
// them.
type apiPolicies struct {
	mu       sync.Mutex
	labels   map[string]map[string]string             // the node's pods by "namespace/name"
	policies map[string][]*networkingv1.NetworkPolicy // by namespace; absent: not loaded
	failed   map[string]error                         // why the last load of a namespace not loaded failed
}

// PodsSynced records the labels of the node's pods and loads the policies
// of the namespaces not loaded yet; namespaces without pods are forgotten,
// to be loaded again before their next pod starts.
func (s *apiSource) PodsSynced(ctx context.Context, pods []*corev1.Pod) {
	labels := map[string]map[string]string{}
	namespaces := map[string]bool{}
	for _, p := range pods {
		labels[abi.PodID(p.Namespace, p.Name)] = p.Labels
		namespaces[p.Namespace] = true
	}
	np := &s.netpol
	np.mu.Lock()
	np.labels = labels
	var missing []string
	for ns := range namespaces {
		if _, ok := np.policies[ns]; !ok {
			missing = append(missing, ns)
		}
	}
	for ns := range np.policies {
		if !namespaces[ns] {
			delete(np.policies, ns)
		}
	}
	for ns := range np.failed {
		if !namespaces[ns] {
			delete(np.failed, ns)
		}
	}
	np.mu.Unlock()
	s.loadAllPolicies(ctx, missing) // a failure leaves a namespace unloaded: its pods' calls are denied until a later load
}

// policyListTimeout bounds one list of a namespace's policies, however the
// API server fails it (a request held unanswered, a connection accepted
// and never read, one refused). It is shorter than abi.PolicyRelist, so
// that a list that hangs ends before the next relist is due: once the API
// server answers again, the policies load within one relist period and one
// list's deadline, the spec's "within about 7 s" (docs/networkpolicy.md).
const policyListTimeout = abi.PolicyRelist / 2

// loadAllPolicies lists the policies of every namespace of namespaces at
// once, so that a relist takes one list's deadline at most, not one per
// namespace: lists one after another, each held to its deadline, would
// push the next relist of the last namespaces past abi.PolicyRelist.
func (s *apiSource) loadAllPolicies(ctx context.Context, namespaces []string) {
	var wg sync.WaitGroup
	for _, ns := range namespaces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.loadPolicies(ctx, ns) // a failure is kept in np.failed, for the denial's reason
		}()
	}
	wg.Wait()
}

// loadPolicies lists the policies of namespace and keeps them. The list is
// one request, with no backoff before it: client-go would retry an answer
// with Retry-After (up to ten times, sleeping past any deadline), or wait
// out a backoff that grows with each failure when its environment asks
// for one (KUBE_CLIENT_BACKOFF_BASE); the next relist retries soon enough.
func (s *apiSource) loadPolicies(ctx context.Context, namespace string) error {
	ctx, cancel := context.WithTimeout(ctx, policyListTimeout)
	defer cancel()
	list := &networkingv1.NetworkPolicyList{}
	err := s.client.networking.Get().Namespace(namespace).Resource("networkpolicies").
		MaxRetries(0).BackOffWithContext(&rest.NoBackoff{}).Do(ctx).Into(list)
	np := &s.netpol
	np.mu.Lock()
	defer np.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("listing the NetworkPolicies of namespace %s: %w", namespace, err)
		if np.failed == nil {
			np.failed = map[string]error{}
		}
		np.failed[namespace] = err
		return err
	}
	out := make([]*networkingv1.NetworkPolicy, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	if np.policies == nil {
		np.policies = map[string][]*networkingv1.NetworkPolicy{}
	}
	np.policies[namespace] = out
	delete(np.failed, namespace)
	return nil
}

// refreshPolicies lists the policies of every namespace with pods on the
// node again every abi.PolicyRelist, until ctx ends.
func (s *apiSource) refreshPolicies(ctx context.Context) {
	t := time.NewTicker(abi.PolicyRelist)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.netpol.mu.Lock()
		seen := map[string]bool{}
		var namespaces []string
		for key := range s.netpol.labels {
			if ns, _, _ := abi.SplitPodID(key); !seen[ns] {
				seen[ns] = true
				namespaces = append(namespaces, ns)
			}
		}
		s.netpol.mu.Unlock()
		s.loadAllPolicies(ctx, namespaces) // on failure the last list stays in force
	}
}

// Policies returns the policies of namespace as last loaded, or why the
// node has not loaded them.
func (s *apiSource) Policies(namespace string) ([]*networkingv1.NetworkPolicy, error) {
	s.netpol.mu.Lock()
	defer s.netpol.mu.Unlock()
	if p, ok := s.netpol.policies[namespace]; ok {
		return p, nil
	}
	why := "the node has not loaded the NetworkPolicies of namespace " + namespace
	if err := s.netpol.failed[namespace]; err != nil {
		why += ": " + err.Error()
	}
	return nil, errors.New(why)
}

func (s *apiSource) CallerLabels(namespace, name string) (map[string]string, bool) {
	s.netpol.mu.Lock()
	defer s.netpol.mu.Unlock()
	l, ok := s.netpol.labels[abi.PodID(namespace, name)]
	return l, ok
}

func (s *apiSource) NamespaceLabels(ctx context.Context, name string) map[string]string {
	obj, err := s.fetch("ns/"+name, func() (any, error) {
		return s.client.namespaces().Get(ctx, name, metav1.GetOptions{})
	})
	if err != nil {
		return nil
	}
	return obj.(*corev1.Namespace).Labels
}

func (s *apiSource) TargetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	obj, err := s.fetch("pod/"+namespace+"/"+name, func() (any, error) {
		return s.client.pods(namespace).Get(ctx, name, metav1.GetOptions{})
	})
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}
