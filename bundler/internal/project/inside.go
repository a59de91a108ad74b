package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkBundled checks a directory that is copied into the firmware: it
// exists and lies inside the project.
func (p *Project) checkBundled(field, rel string) error {
	if err := p.checkPath(field, rel, true); err != nil {
		return err
	}
	return p.checkInside(field, rel)
}

// checkInside reports why the directory rel, which exists, is not inside the
// project directory: it is an absolute path elsewhere, climbs out with "..",
// or reaches out through a symbolic link on the way. Bundles and asset
// folders are copied into the firmware and served, so they may hold only
// files of the project.
func (p *Project) checkInside(field, rel string) error {
	if !within(p.Dir, p.Path(rel)) {
		return fieldError(field, "%s is outside the project directory %s; only files of the project are bundled", rel, p.Dir)
	}
	root, err := os.OpenRoot(p.Dir)
	if err != nil {
		return fieldError(field, "%v", err)
	}
	defer root.Close()
	r, _ := filepath.Rel(p.Dir, p.Path(rel))
	if _, err := root.Stat(r); err != nil {
		// os.Stat found it (validate checked), so the root refused it: a
		// link on the way leads out or is absolute.
		if errors.Is(err, fs.ErrNotExist) {
			return fieldError(field, "%v", err)
		}
		to, _ := filepath.EvalSymlinks(p.Path(rel))
		if top, err := filepath.EvalSymlinks(p.Dir); err == nil && within(top, to) {
			return fieldError(field, "%s is reached through an absolute symbolic link (to %s); only relative links are followed", rel, to)
		}
		return fieldError(field, "%s leads out of the project directory %s through a symbolic link (to %s); only files of the project are bundled", rel, p.Dir, to)
	}
	return nil
}

// within reports whether path is dir or lies below it, by their names.
func within(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
