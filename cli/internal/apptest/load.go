package apptest

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Dir is the project's folder of test files (docs/testing.md).
const Dir = "tests"

// Load parses every .hurl file under the project's tests/ folder, in
// path order. A project without one has no tests: nil, no error.
func Load(project string) ([]*File, error) {
	root := filepath.Join(project, Dir)
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".hurl") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	sort.Strings(paths)
	var files []*File
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(project, p)
		if err != nil {
			rel = p
		}
		f, err := Parse(filepath.ToSlash(rel), src)
		if err != nil {
			return nil, err
		}
		f.Dir = filepath.Dir(p) // file,…; paths are relative to it
		files = append(files, f)
	}
	return files, nil
}
