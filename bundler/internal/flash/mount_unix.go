//go:build unix

package flash

import (
	"path/filepath"
	"syscall"
)

// isMountPoint reports whether path is the root of a mounted filesystem: its
// device differs from its parent's. "/" does not count.
func isMountPoint(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil || abs == filepath.Dir(abs) {
		return false
	}
	var st, parent syscall.Stat_t
	if syscall.Stat(abs, &st) != nil || syscall.Stat(filepath.Dir(abs), &parent) != nil {
		return false
	}
	return st.Dev != parent.Dev
}
