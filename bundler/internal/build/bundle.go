package build

import (
	"os"
	"path/filepath"

	"github.com/kube32/kube32/bundler/internal/atomicfile"
	"github.com/kube32/kube32/bundler/internal/precompress"
	"github.com/kube32/kube32/bundler/internal/project"
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
	src, err := openSource(p.Dir, t.src, p.BuildDir())
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if err := copyTree(tmp, src); err != nil {
		return nil, err
	}
	st, err := precompress.Dir(tmp, precompress.Options{GzipOnly: t.gzipOnly, Brotli: t.brotli, BestGzip: t.bestGzip})
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

// copyTree copies the files of src into dst.
func copyTree(dst string, src *bundleSource) error {
	for _, name := range src.files {
		data, err := src.read(name)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
	}
	return nil
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
