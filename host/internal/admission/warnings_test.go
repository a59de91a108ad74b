package admission

import (
	"slices"
	"strings"
	"testing"
)

// Issue 30, item 9: "NetworkPolicy ingress rules are stored and not
// enforced" (docs/networkpolicy.md), so a policy with ingress rules, or
// the Ingress policy type that kube-apiserver defaults, is admitted with a
// warning naming the field; a policy of egress alone has none, nor has a
// kind whose every field is heeded.
func TestNetworkPolicyWarnings(t *testing.T) {
	const head = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  podSelector: {}\n"
	for name, c := range map[string]struct {
		spec string
		want []string // the start of each warning
	}{
		"ingress rules":                     {"  ingress: [{from: [{podSelector: {}}]}]\n", []string{"spec.ingress: ingress rules are not enforced: ", "spec.policyTypes: without Egress this policy changes nothing"}},
		"ingress and egress rules":          {"  ingress: [{}]\n  egress: [{}]\n", []string{"spec.ingress: ingress rules are not enforced: "}},
		"ingress rules, policyTypes Egress": {"  policyTypes: [Egress]\n  ingress: [{}]\n", []string{"spec.ingress: ingress rules are not enforced: "}},
		"default deny ingress":              {"  policyTypes: [Ingress]\n", []string{"spec.policyTypes: without Egress this policy changes nothing"}},
		"nothing but a selector":            {"", []string{"spec.policyTypes: without Egress this policy changes nothing"}},
		"egress rules, types defaulted":     {"  egress: [{}]\n", []string{"spec.policyTypes: Ingress is not enforced: "}},
		"both types, egress rules":          {"  policyTypes: [Ingress, Egress]\n  egress: [{}]\n", []string{"spec.policyTypes: Ingress is not enforced: "}},
		"egress alone":                      {"  policyTypes: [Egress]\n  egress: [{}]\n", nil},
		"deny all egress":                   {"  policyTypes: [Egress]\n", nil},
	} {
		obj, strictErr, err := Decode("application/yaml", []byte(head+c.spec))
		if err != nil || strictErr != nil {
			t.Fatalf("%s: Decode: %v %v", name, strictErr, err)
		}
		if errs := Admit(obj); len(errs) > 0 {
			t.Fatalf("%s refused: %v", name, errs.ToAggregate())
		}
		got := Warnings(obj)
		if len(got) != len(c.want) || slices.ContainsFunc(got, func(w string) bool { return !strings.Contains(w, "docs/networkpolicy.md") }) {
			t.Errorf("%s: warnings %q, want %d naming docs/networkpolicy.md", name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: warning %q, want it to start %q", name, got[i], w)
			}
		}
	}

	pod, _, _ := Decode("application/yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: 'wasm://embedded/p'}]}\n"))
	if errs := Admit(pod); len(errs) > 0 || Warnings(pod) != nil {
		t.Errorf("a Pod: %v, warnings %q", errs, Warnings(pod))
	}
}
