//go:build !unix

package testjco

import "errors"

func lockFile(path string, waiting func()) (unlock func(), err error) {
	return nil, errors.New("the install lock needs a unix system")
}
