package kubeconfig

import (
	"errors"
	"io/fs"
	"os"
)

func isNotExist(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
