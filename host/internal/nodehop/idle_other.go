//go:build !unix

package nodehop

// closedWhileIdle cannot look without waiting here: a connection the node
// closed is found when the request written to it fails (Pool.Do retries).
func (c *conn) closedWhileIdle() bool { return false }
