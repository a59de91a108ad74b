package build

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
)

// withPaths is objs naming their files by absolute path.
func withPaths(p *project.Project, objs []manifest.Object) []manifest.Object {
	out := slices.Clone(objs)
	for i := range out {
		out[i].File = p.Path(out[i].File)
	}
	return out
}

// LoadManifests decodes the project's manifests; objects and errors name
// the files as kube32.yaml lists them.
func LoadManifests(p *project.Project) ([]manifest.Object, error) {
	var objs []manifest.Object
	for _, m := range p.Manifests {
		data, err := os.ReadFile(p.Path(m))
		if err != nil {
			return nil, err
		}
		o, err := manifest.Decode(filepath.ToSlash(m), data)
		if err != nil {
			return nil, err
		}
		objs = append(objs, o...)
	}
	return objs, nil
}

// unbuiltImageWarnings warns about Pods of the manifests whose image no pod
// of kube32.yaml builds: most likely a typo, which serve would report only
// when the Pod fails to start.
func unbuiltImageWarnings(p *project.Project, objs []manifest.Object) []string {
	built := map[string]bool{}
	for _, pod := range p.Pods {
		built[pod.Image] = true
	}
	limits := manifest.MemoryLimits(objs)
	refs := make([]string, 0, len(limits))
	for ref := range limits {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	var warnings []string
	for _, ref := range refs {
		if !built[ref] {
			warnings = append(warnings, fmt.Sprintf("%s runs image %s, which no pod of %s builds",
				strings.Join(limits[ref].Pods, ", "), ref, project.FileName))
		}
	}
	return warnings
}
