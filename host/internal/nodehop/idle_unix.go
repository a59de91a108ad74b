//go:build unix

package nodehop

import "syscall"

// closedWhileIdle reports whether the node closed c, or sent on it, while
// it lay idle: one read that does not wait, and that finds nothing to read
// on a connection still open. A request is then never written to a
// connection the node has already closed.
func (c *conn) closedWhileIdle() bool {
	if c.raw == nil {
		return false
	}
	open := false
	err := c.raw.Read(func(fd uintptr) bool {
		var b [1]byte
		_, err := syscall.Read(int(fd), b[:])
		open = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true
	})
	return err != nil || !open
}
