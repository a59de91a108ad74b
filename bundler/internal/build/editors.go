package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/bundler/internal/atomicfile"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/compile"
)

// IsEditorFile reports whether rel, a path from the project root, is one
// that only editors read (an editor file the build writes for some
// language, what their tools write beside it, or the temporary file of such
// a write): changing it changes nothing the build makes, so a watcher need
// not build again.
func IsEditorFile(rel string) bool {
	return atomicfile.IsTemp(path.Base(filepath.ToSlash(rel))) || compile.IsEditorFile(rel)
}

// writeEditorFiles writes, at every build and before the build reads the
// pods' folders (so that their fingerprints already hold them), the files
// each language's editors read to see the pods as the build compiles them
// (compile.EditorFiles: compile_commands.json for C, Cargo files for Rust,
// tsconfig.json for AssemblyScript). A file the user wrote is left alone;
// each such file, and each file that could not be written, is a warning.
func writeEditorFiles(ctx context.Context, p *project.Project, objs []manifest.Object, opts Options, board *abi.Board) []string {
	limits := manifest.MemoryLimits(objs)
	var jobs []compile.Job
	for _, pod := range p.Pods {
		jobs = append(jobs, moduleJob(p, pod, limits[pod.Image].Bytes, opts, board))
	}
	var warnings []string
	for _, f := range compile.EditorFiles(ctx, compile.EditorProject{Dir: p.Dir, CacheDir: p.CacheDir()}, jobs) {
		warnings = appendWarning(warnings, writeEditorFile(p.Dir, f))
	}
	return warnings
}

func appendWarning(warnings []string, err error) []string {
	if err != nil {
		return append(warnings, err.Error())
	}
	return warnings
}

// errUsers is wrapped by the warning for a file the user wrote.
var errUsers = errors.New("the file is not kube32's")

// writeEditorFile writes f under root unless the file there is the user's
// (f.Ours says it is not), and only when it changes, so that editors and
// `kube32 serve --watch` see no change for nothing.
func writeEditorFile(root string, f compile.EditorFile) error {
	rel, data, mode := f.Path, f.Data, os.FileMode(f.Mode)
	if mode == 0 {
		mode = 0o644
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		return nil
	case err == nil && !f.Ours(old):
		return fmt.Errorf("%s: left as is, %w (kube32 build writes it when it is missing or its own; docs/project.md \"Editors\")", rel, errUsers)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", rel, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	if err := atomicfile.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	return nil
}

// WriteSDKs writes the SDK copies that the project's pods use outside the
// build (their toolchains and editors: the Go SDK that go.mod files point
// at, the AssemblyScript SDK that tsconfig.json files name), as a build
// does, and returns their folders, each once.
func WriteSDKs(p *project.Project) ([]string, error) {
	var dirs []string
	for _, pod := range p.Pods {
		dir, err := compile.WriteSDK(moduleJob(p, pod, 0, Options{}, nil))
		if err != nil {
			return nil, err
		}
		if dir != "" && !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs, nil
}
