package build

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/bundler/internal/atomicfile"
	"github.com/kube32/kube32/bundler/precompress"
	"github.com/kube32/kube32/bundler/project"
)

// buildBundle copies a bundle's source directory into a temporary directory
// beside its output, precompresses it there, and swaps it into place, so the
// output is always a whole bundle, old or new.
func buildBundle(p *project.Project, t *task) (*stamp, error) {
	abs := filepath.Join(p.BuildDir(), filepath.FromSlash(t.out))
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, atomicfile.TempPrefix+filepath.Base(abs)+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(tmp, t.src, p.BuildDir()); err != nil {
		return nil, err
	}
	st, err := precompress.Dir(tmp, precompress.Options{GzipOnly: t.gzipOnly, Brotli: t.brotli})
	if err != nil {
		return nil, err
	}
	files, err := listFiles(tmp)
	if err != nil {
		return nil, err
	}
	if err := swapDir(abs, tmp); err != nil {
		return nil, err
	}
	return &stamp{Inputs: t.inputs, Files: files, Stats: st}, nil
}

// copyTree copies the regular files under src into dst, skipping exclude
// (the build directory, in case a bundle's source contains it). Symbolic
// links to files are copied as files.
func copyTree(dst, src, exclude string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == exclude {
			return filepath.SkipDir
		}
		if strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := os.Stat(p) // follows links
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: only regular files can be bundled", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// swapDir replaces dir with next (both in one parent directory): dir is moved
// aside first, so that at every moment one complete bundle is in place or
// the rename of next is the only step left.
func swapDir(dir, next string) error {
	if _, err := os.Lstat(dir); err == nil {
		old := filepath.Join(filepath.Dir(dir), atomicfile.TempPrefix+"old-"+filepath.Base(dir))
		if err := os.RemoveAll(old); err != nil {
			return err
		}
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		defer os.RemoveAll(old)
	}
	return os.Rename(next, dir)
}
