//go:build unix

package testenv

import (
	"os"
	"syscall"
)

// LockFile takes an exclusive lock on path, calling waiting first if another
// process holds it; unlock releases it. The lock goes with the process, so a
// killed builder never leaves it held.
func LockFile(path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		waiting()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, err
		}
	}
	return func() { f.Close() }, nil
}
