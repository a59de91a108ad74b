package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotFound is the error of Find when no kube32.yaml is found.
var ErrNotFound = errors.New("no " + FileName + " found")

// Find returns the project directory of dir, as git and go find theirs: the
// nearest of dir and its parents that holds a kube32.yaml, as an absolute
// path. When none does, the error wraps ErrNotFound. A kube32.yaml that is
// not a file is an error, not a reason to look further up.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		file := filepath.Join(d, FileName)
		info, err := os.Stat(file)
		switch {
		case err == nil && info.IsDir():
			return "", fmt.Errorf("%s is a directory, not a project file", file)
		case err == nil:
			return d, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%w in %s or any parent folder (is this a kube32 project? `kube32 new NAME` makes one)", ErrNotFound, abs)
		}
		d = parent
	}
}
