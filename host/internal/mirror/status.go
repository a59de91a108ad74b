package mirror

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/store"
)

// statusWriter sends the Ingresses' status.loadBalancer to the cluster,
// the latest for each Ingress, one write at a time, trying a failed one
// again after statusRetry.
type statusWriter struct {
	client *rest.RESTClient
	logf   func(format string, args ...any)

	mu      sync.Mutex
	pending map[store.Key][]networkingv1.IngressLoadBalancerIngress
	wake    chan struct{}
}

func (s *statusWriter) queue(key store.Key, lb []networkingv1.IngressLoadBalancerIngress) {
	s.mu.Lock()
	s.pending[key] = lb
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *statusWriter) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		for s.writeAll(ctx) && ctx.Err() == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(statusRetry):
			}
		}
	}
}

// writeAll writes what is pending and reports whether a write failed
// (and is pending again, unless a newer status came meanwhile).
func (s *statusWriter) writeAll(ctx context.Context) (failed bool) {
	s.mu.Lock()
	pending := s.pending
	s.pending = map[store.Key][]networkingv1.IngressLoadBalancerIngress{}
	s.mu.Unlock()
	for key, lb := range pending {
		err := s.write(ctx, key, lb)
		if err == nil || apierrors.IsNotFound(err) { // a deleted Ingress needs no status
			continue
		}
		failed = true
		s.logf("[INGRESS] %s/%s: status.loadBalancer: %v", key.Namespace, key.Name, err)
		s.mu.Lock()
		if _, newer := s.pending[key]; !newer {
			s.pending[key] = lb
		}
		s.mu.Unlock()
	}
	return failed
}

// write merge-patches the Ingress's status.loadBalancer.ingress: the
// list as a whole, as the controller set it.
func (s *statusWriter) write(ctx context.Context, key store.Key, lb []networkingv1.IngressLoadBalancerIngress) error {
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": lb}}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return s.client.Patch(types.MergePatchType).Namespace(key.Namespace).Resource("ingresses").
		Name(key.Name).SubResource("status").Body(patch).Do(ctx).Error()
}
