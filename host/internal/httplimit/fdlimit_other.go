//go:build !unix

package httplimit

// openFileLimit is unknown on this system.
func openFileLimit() int { return 0 }
