//go:build !unix

package testenv

import "errors"

// LockFile is not available here: builds and installs under a lock need a
// unix system.
func LockFile(path string, waiting func()) (unlock func(), err error) {
	return nil, errors.New("a file lock needs a unix system")
}
