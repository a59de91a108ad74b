// Package snapshot builds the demo project and writes what package demo
// embeds: one archive holding images/ (the build's firmware/ and sd/ trees)
// and manifests/ (the project's manifests, numbered in the project's order).
package snapshot

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/kube32/kube32/bundler"
)

// Files builds the project in projectDir and returns the files of the
// snapshot by slash-separated path.
func Files(ctx context.Context, projectDir string, log io.Writer) (map[string][]byte, error) {
	result, err := bundler.Build(ctx, projectDir, bundler.BuildOptions{Progress: func(s bundler.Step) {
		if s.State != bundler.StepStarted {
			fmt.Fprintln(log, s)
		}
	}})
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, tree := range []string{"firmware", "sd"} {
		root := filepath.Join(result.BuildDir, tree)
		if _, err := os.Stat(root); os.IsNotExist(err) {
			continue
		}
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			files[path.Join("images", tree, p)] = data
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	p, err := bundler.LoadProject(projectDir)
	if err != nil {
		return nil, err
	}
	for i, m := range p.ManifestPaths() {
		data, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		files[fmt.Sprintf("manifests/%d-%s", i+1, filepath.Base(m))] = data
	}
	return files, nil
}
