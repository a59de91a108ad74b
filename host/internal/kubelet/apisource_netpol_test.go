package kubelet

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// A worker's policies, against a real API server: "loads the policies of a
// namespace before the first pod of that namespace starts on the node" and
// "A worker that has not loaded the policies of a pod's namespace denies
// the pod's calls."
func TestWorkerPolicies(t *testing.T) {
	s := store.New()
	for _, ns := range []string{"default", "other"} {
		s.Apply(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"kubernetes.io/metadata.name": ns}}})
	}
	s.Apply(&networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "deny"},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
		},
	})
	api := httptest.NewServer(apiserver.New(apiserver.Config{Store: s}))
	defer api.Close()
	source, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	policy, err := outbound.NewPolicy(source, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := newKubelet(t, Config{NodeName: "w1", NodeIP: "127.0.0.2", Source: source, Policy: policy})
	host := netip.MustParseAddrPort("127.0.0.9:8000")
	denied := func(from string) string {
		err := policy.CheckHost(context.Background(), from, host)
		var d *outbound.DeniedError
		if err != nil && !errors.As(err, &d) {
			t.Fatalf("Check(%s): %v is no DeniedError", from, err)
		}
		if err == nil {
			return ""
		}
		return d.Reason
	}

	if r := denied("default/a"); !strings.Contains(r, "not loaded the NetworkPolicies of namespace default") {
		t.Errorf("before any pod sync: %q, want a denial for policies not loaded", r)
	}
	pods := map[store.Key]*corev1.Pod{}
	for _, p := range []*corev1.Pod{relayPod("default", "a"), relayPod("default", "b")} {
		pods[store.KeyOf(p)] = p
	}
	k.syncPolicies(context.Background(), pods)
	if r := denied("default/a"); !strings.Contains(r, "no egress rule of NetworkPolicy default/deny") {
		t.Errorf("a, selected by default/deny: %q", r)
	}
	if r := denied("default/b"); r != "" {
		t.Errorf("b, selected by no policy: denied: %s", r)
	}
	if r := denied("other/o"); !strings.Contains(r, "not loaded the NetworkPolicies of namespace other") {
		t.Errorf("a pod of a namespace without pods on the node: %q", r)
	}
}

// Issue 19, item 7: a worker whose list of a namespace's policies failed
// loads them at the next relist once the API server answers again ("A
// policy change reaches a worker within about 7 s"). An API server that
// sheds load answers 429 with Retry-After, as kube-apiserver does; one
// list must be one request, not client-go's ten retries that sleep past
// the relist's deadline and period.
func TestPolicyRelistIsOneRequestAndRecovers(t *testing.T) {
	s := store.New()
	s.Apply(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	inner := apiserver.New(apiserver.Config{Store: s})
	var shedding atomic.Bool
	var shed atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if shedding.Load() && strings.HasSuffix(r.URL.Path, "/networkpolicies") {
			shed.Add(1)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests", http.StatusTooManyRequests)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer api.Close()
	source, err := NewAPISource(api.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	src := source.(*apiSource)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	shedding.Store(true)
	src.PodsSynced(ctx, []*corev1.Pod{relayPod("default", "a")})
	if n := shed.Load(); n != 1 {
		t.Errorf("one load of the policies made %d requests, want 1", n)
	}
	if _, err := src.Policies("default"); err == nil {
		t.Fatal("policies loaded while the API server refused the list")
	}
	go src.refreshPolicies(ctx)
	shedding.Store(false)
	testenv.Eventually(t, "the relist to load the policies of default", func() bool {
		_, err := src.Policies("default")
		return err == nil
	})
}
