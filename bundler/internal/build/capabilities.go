package build

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
)

// capabilityWarnings warns about each Pod that runs a pod whose module
// imports a host function that needs a capability (k32_http_call,
// k32_publish) without adding that capability: the pod builds and starts
// there, and every such call returns K32_ERR_PERM. Images that no Pod of
// the manifests runs are left alone: their Pods are not known here.
func capabilityWarnings(p *project.Project, objs []manifest.Object, items []Item) []string {
	runs := manifest.ImageRuns(objs)
	var warnings []string
	for _, it := range items {
		if it.Kind != KindPod || len(runs[it.Image]) == 0 {
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
			if warned[f.Capability] {
				continue
			}
			warned[f.Capability] = true
			if w := missingCapability(it, f, runs[it.Image]); w != "" {
				warnings = append(warnings, w)
			}
		}
	}
	return warnings
}

// missingCapability words the warning of the Pods among runs, those that
// run its image, that do not add the capability f needs; "" when all do.
func missingCapability(it Item, f abi.Function, runs []manifest.ImageRun) string {
	var lacking, pods []string
	for _, r := range runs {
		if !slices.Contains(pods, r.Pod) {
			pods = append(pods, r.Pod)
		}
		if !slices.Contains(r.Capabilities, string(f.Capability)) && !slices.Contains(lacking, r.Pod) {
			lacking = append(lacking, r.Pod)
		}
	}
	var who string
	switch {
	case len(lacking) == 0:
		return ""
	case len(lacking) == len(pods):
		who = "no Pod running " + it.Image + " adds"
	case len(lacking) == 1:
		who = "Pod " + lacking[0] + ", which runs " + it.Image + ", does not add"
	default:
		who = "Pods " + strings.Join(lacking, ", ") + ", which run " + it.Image + ", do not add"
	}
	return fmt.Sprintf("pod %s imports %s but %s capability %s (securityContext.capabilities.add): its calls will return %s",
		it.Name, f.Name, who, f.Capability, abi.ErrPerm.Name())
}
