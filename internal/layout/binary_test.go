package layout

import (
	"slices"
	"strings"
	"testing"
)

// The kube32 binary links typed Kubernetes clients of no API group
// (docs/design.md, "Why is the binary small?"): client-go's clientset and
// its apply configurations bring every group's, which doubled the binary
// the last time a command used them. Reads of a real cluster go through
// the dynamic client or the REST client over the served kinds.
func TestTheBinaryLinksNoTypedClientset(t *testing.T) {
	for _, p := range packages(t) {
		if p.ImportPath != "cli/kube32" {
			continue
		}
		if !slices.Contains(p.Deps, "k8s.io/client-go/rest") {
			t.Fatalf("cli/kube32's dependencies lack k8s.io/client-go/rest: go list gave no Deps?")
		}
		for _, dep := range p.Deps {
			if strings.HasPrefix(dep, "k8s.io/client-go/kubernetes") || strings.HasPrefix(dep, "k8s.io/client-go/applyconfigurations") {
				t.Errorf("the kube32 binary links %s", dep)
			}
		}
		return
	}
	t.Fatal("go list does not list cli/kube32")
}
