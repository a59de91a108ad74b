//go:build !unix

package testk8s

import "errors"

func lockFile(path string, waiting func()) (unlock func(), err error) {
	return nil, errors.New("the build lock needs a unix system")
}
