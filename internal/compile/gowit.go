package compile

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"

	"github.com/kube32/kube32/internal/witgo"
)

// UsesWIT reports whether the Go module in podDir requires the Go bindings
// of the WIT world (witgo.ModulePath): only those pods get them in their
// workspace, since the bindings need go.bytecodealliance.org/cm in the
// module cache and other Go pods must build without it.
func UsesWIT(podDir string) (bool, error) {
	path := filepath.Join(podDir, "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		return false, err
	}
	for _, r := range f.Require {
		if r.Mod.Path == witgo.ModulePath {
			return true, nil
		}
	}
	return false, nil
}

// WriteGoWIT makes dir the Go bindings of abi/k32.wit (module
// witgo.ModulePath), rewriting them only when they differ.
func WriteGoWIT(dir string) error { return witgo.Write(dir) }

// goWIT writes the job's Go bindings when its pod uses them and returns
// their directory for the workspace, none otherwise.
func goWIT(job Job) ([]string, error) {
	uses, err := UsesWIT(job.SourceDir)
	if err != nil || !uses {
		return nil, err
	}
	dir := job.GoWITDir
	if dir == "" {
		dir = filepath.Join(job.CacheDir, "wit", "go")
	}
	if err := WriteGoWIT(dir); err != nil {
		return nil, fmt.Errorf("pod %s: %w", job.Name, err)
	}
	return []string{dir}, nil
}
