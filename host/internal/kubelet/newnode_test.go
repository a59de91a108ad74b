package kubelet

import (
	"errors"
	"testing"

	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/store"
)

// newKubelet is New for tests: a Source over the store when cfg names
// none (over an empty one when it names no store either), and, unless
// cfg has one, the node's Policy over that Source, logging to cfg.Log.
func newKubelet(t *testing.T, cfg Config) *Kubelet {
	t.Helper()
	if cfg.Source == nil {
		if cfg.Store == nil {
			cfg.Store = store.New()
		}
		cfg.Source = StoreSource(cfg.Store)
	}
	if cfg.Policy == nil {
		policy, err := outbound.NewPolicy(cfg.Source, cfg.Log)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Policy = policy
	}
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A node checks every call of its pods against their NetworkPolicies, so
// a kubelet without the objects to read them from, or without the check
// built over them, does not start: it fails closed, naming what is
// missing (docs/networkpolicy.md).
func TestKubeletWithoutPolicySourceDoesNotStart(t *testing.T) {
	source := StoreSource(store.New())
	policy, err := outbound.NewPolicy(source, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		what string
		cfg  Config
		want string
	}{
		{"no Source", Config{NodeName: "w1", Policy: policy}, "kubelet: node w1: no Source (Config.Source or Config.Store): no NetworkPolicy source"},
		{"no Policy", Config{NodeName: "w1", Source: source}, "kubelet: node w1: no NetworkPolicy check (Config.Policy, outbound.NewPolicy over its Source): no NetworkPolicy source"},
	} {
		k, err := New(tt.cfg)
		if k != nil || !errors.Is(err, outbound.ErrNoPolicySource) || len(err.Error()) < len(tt.want) || err.Error()[:len(tt.want)] != tt.want {
			t.Errorf("%s: New = %v, %v; want no kubelet and an error starting %q", tt.what, k, err, tt.want)
		}
	}
	if p, err := outbound.NewPolicy(nil, nil); p != nil || !errors.Is(err, outbound.ErrNoPolicySource) {
		t.Errorf("NewPolicy(nil) = %v, %v; want ErrNoPolicySource", p, err)
	}
}
