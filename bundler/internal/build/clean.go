package build

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/bundler/internal/project"
)

// strays lists what build/firmware and build/sd hold that the project does
// not produce (outputs of removed pods and bundles, left-over temporary
// files), relative to build/.
func strays(p *project.Project, tasks []*task) ([]string, error) {
	outputs := map[string]bool{}
	parents := map[string]bool{}
	for _, t := range tasks {
		outputs[t.out] = true
	}
	for _, d := range skeleton {
		for ; d != "."; d = path.Dir(d) {
			parents[d] = true
		}
	}
	var extra []string
	var walk func(rel string) error
	walk = func(rel string) error {
		ents, err := os.ReadDir(filepath.Join(p.BuildDir(), filepath.FromSlash(rel)))
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range ents {
			child := path.Join(rel, e.Name())
			switch {
			case outputs[child]:
			case parents[child] && e.IsDir():
				if err := walk(child); err != nil {
					return err
				}
			default:
				extra = append(extra, child)
			}
		}
		return nil
	}
	for _, root := range []images.Storage{images.Firmware, images.SD} {
		if err := walk(string(root)); err != nil {
			return nil, err
		}
	}
	sort.Strings(extra)
	return extra, nil
}

// clean removes the strays and the stamps of outputs that no longer exist.
func clean(p *project.Project, tasks []*task) ([]string, error) {
	extra, err := strays(p, tasks)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, rel := range extra {
		if err := os.RemoveAll(filepath.Join(p.BuildDir(), filepath.FromSlash(rel))); err != nil {
			return removed, err
		}
		if !strings.HasPrefix(path.Base(rel), ".") {
			removed = append(removed, rel)
		}
	}
	keep := map[string]bool{}
	for _, t := range tasks {
		keep[stampPath(p.CacheDir(), t.out)] = true
	}
	stamps, _ := filepath.Glob(filepath.Join(p.CacheDir(), stampsDir, "*.json"))
	for _, s := range stamps {
		if !keep[s] {
			os.Remove(s)
		}
	}
	return removed, nil
}
