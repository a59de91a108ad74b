package call

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/outbound"
)

// testPolicies is a policy source for these tests: the NetworkPolicies of
// every namespace, and every pod labelled pod=<its name>.
type testPolicies []*networkingv1.NetworkPolicy

func (p testPolicies) Policies(string) ([]*networkingv1.NetworkPolicy, error) { return p, nil }
func (p testPolicies) CallerLabels(_, name string) (map[string]string, bool) {
	return map[string]string{"pod": name}, true
}
func (p testPolicies) NamespaceLabels(context.Context, string) map[string]string { return nil }
func (p testPolicies) TargetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"pod": name}}}, nil
}

// policy returns the Policy of src.
func policy(t *testing.T, src outbound.PolicySource) *outbound.Policy {
	t.Helper()
	p, err := outbound.NewPolicy(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// noPolicies is the Policy of a cluster without NetworkPolicies: every
// call is allowed.
func noPolicies(t *testing.T) *outbound.Policy { return policy(t, testPolicies(nil)) }

// egressTo is a policy of default that lets its pods call only the pod
// named pod.
func egressTo(pod string) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "to-" + pod},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{
				{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"pod": pod}}}}}}}}
}

// wantErrno fails t unless err is exactly code.
func wantErrno(t *testing.T, err error, code abi.Errno) {
	t.Helper()
	var e abi.Errno
	if !errors.As(err, &e) || e != code {
		t.Fatalf("error = %v, want %v", err, code)
	}
}
