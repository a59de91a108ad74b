package build

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/bundler/internal/atomicfile"
)

// bundleSource is a bundle's (or a pod's assets') source directory, read
// through an os.Root at the project directory so that no file outside the
// project is ever read. A relative symbolic link to a file inside the
// project counts as that file; a link that leads out of the project, an
// absolute link, a link to a directory and anything but a regular file are
// refused, naming the file.
type bundleSource struct {
	root  *os.Root
	dir   string   // the source directory, slash-separated, relative to the root
	files []string // slash paths relative to dir, in lexical order
}

// openSource lists the files of src (absolute, inside projectDir), leaving
// out exclude (the build directory) and kube32's temporary files. The
// caller closes it.
func openSource(projectDir, src, exclude string) (*bundleSource, error) {
	rel, err := filepath.Rel(projectDir, src)
	if err != nil {
		return nil, err
	}
	skip, err := filepath.Rel(projectDir, exclude)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(projectDir)
	if err != nil {
		return nil, err
	}
	s := &bundleSource{root: root, dir: filepath.ToSlash(rel)}
	skip = filepath.ToSlash(skip)
	err = fs.WalkDir(root.FS(), s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == skip {
			return filepath.SkipDir
		}
		if strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if err := s.check(p, d); err != nil {
			return err
		}
		name := strings.TrimPrefix(p, s.dir+"/")
		if s.dir == "." {
			name = p
		}
		s.files = append(s.files, name)
		return nil
	})
	if err != nil {
		root.Close()
		return nil, err
	}
	return s, nil
}

// check refuses the file p (a root path) unless it is a regular file or a
// link to one inside the project.
func (s *bundleSource) check(p string, d fs.DirEntry) error {
	if d.Type().IsRegular() {
		return nil
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%s: not a regular file; only files are bundled", p)
	}
	to, _ := s.root.Readlink(p)
	info, err := s.root.Stat(p) // follows links that stay inside the root
	switch {
	case err == nil && info.Mode().IsRegular():
		return nil
	case err == nil && info.IsDir():
		return fmt.Errorf("%s is a symbolic link to the directory %s; only links to files are followed", p, to)
	case err == nil:
		return fmt.Errorf("%s is a symbolic link to %s, which is not a regular file; only files are bundled", p, to)
	}
	// The root refused the link: it leads out of the project, is absolute
	// (os.Root follows only relative links) or leads nowhere.
	abs := filepath.Join(s.root.Name(), filepath.FromSlash(p))
	if _, serr := os.Stat(abs); errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("%s is a symbolic link to %s, which does not exist", p, to)
	}
	if filepath.IsAbs(to) && s.holds(abs) {
		return fmt.Errorf("%s is a symbolic link to the absolute path %s; only relative links are followed (they keep working when the project moves)", p, to)
	}
	return fmt.Errorf("%s is a symbolic link to %s, outside the project; only files of the project are bundled (copy the file in instead)", p, to)
}

// holds reports whether the link abs resolves to a path inside the project.
func (s *bundleSource) holds(abs string) bool {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	top, err := filepath.EvalSymlinks(s.root.Name())
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(top, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// read returns the contents of the bundle's file name.
func (s *bundleSource) read(name string) ([]byte, error) {
	return s.root.ReadFile(path.Join(s.dir, name))
}

func (s *bundleSource) Close() error { return s.root.Close() }
