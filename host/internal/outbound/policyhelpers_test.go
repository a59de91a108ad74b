package outbound

import (
	"context"
	"errors"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/host/internal/netpol"
)

// emptySource is a cluster without NetworkPolicies.
type emptySource struct{}

func (emptySource) Policies(string) ([]*networkingv1.NetworkPolicy, error)    { return nil, nil }
func (emptySource) CallerLabels(string, string) (map[string]string, bool)     { return nil, true }
func (emptySource) NamespaceLabels(context.Context, string) map[string]string { return nil }
func (emptySource) TargetPod(context.Context, string, string) (*corev1.Pod, error) {
	return nil, errors.New("no pods")
}

// noPolicies is the Policy of a cluster without NetworkPolicies: it
// allows every connection.
var noPolicies = func() *Policy {
	p, err := NewPolicy(emptySource{}, nil)
	if err != nil {
		panic(err)
	}
	return p
}()

// policyOf is a Policy that decides each connection to a host with allow,
// so that a test sees which addresses are checked.
func policyOf(allow func(ctx context.Context, from string, addr netip.AddrPort) error) *Policy {
	return &Policy{evaluate: func(ctx context.Context, from string, to netpol.Dest) netpol.Decision {
		err := allow(ctx, from, netip.AddrPortFrom(to.Addr, uint16(to.Port)))
		var denied *DeniedError
		switch {
		case errors.As(err, &denied):
			return netpol.Decision{Reason: denied.Reason}
		case err != nil:
			return netpol.Decision{Reason: err.Error()}
		}
		return netpol.Decision{Allowed: true}
	}}
}
