package build

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
)

// capabilityWarnings warns about pods whose module imports a host function
// that needs a capability (k32_http_call, k32_publish) while no Pod of the
// manifests that runs its image adds that capability: the pod builds and
// starts, and every such call returns K32_ERR_PERM. Images that no Pod of
// the manifests runs are left alone: their Pods are not known here.
func capabilityWarnings(p *project.Project, objs []manifest.Object, items []Item) []string {
	added := manifest.AddedCapabilities(objs)
	var warnings []string
	for _, it := range items {
		caps, run := added[it.Image]
		if it.Kind != KindPod || !run {
			continue
		}
		wasm, err := os.ReadFile(filepath.Join(p.BuildDir(), filepath.FromSlash(it.Module)))
		if err != nil {
			continue // the build failed or reported it already
		}
		fns, err := modcheck.CapabilityImports(wasm)
		if err != nil {
			continue // the module check has said why
		}
		warned := map[abi.Capability]bool{}
		for _, f := range fns {
			if warned[f.Capability] || slices.Contains(caps, string(f.Capability)) {
				continue
			}
			warned[f.Capability] = true
			warnings = append(warnings, fmt.Sprintf("pod %s imports %s but no Pod running %s adds capability %s (securityContext.capabilities.add): its calls will return %s",
				it.Name, f.Name, it.Image, f.Capability, abi.ErrPerm.Name()))
		}
	}
	return warnings
}
