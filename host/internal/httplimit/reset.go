package httplimit

import (
	"context"
	"net"
)

// ResetOnClose makes the connection that the request of ctx came on end
// with a reset (reset true) or a graceful close (false, the default) when
// it is closed. net/http closes a connection at once when a write to it
// fails; with a reset, what the kernel still holds for a client that
// stopped reading is dropped at once rather than trickled to it for
// minutes (a pod's answer to a slow client, docs/serve.md "Hostile
// clients"). A request that came on no connection of these servers is
// left alone.
func ResetOnClose(ctx context.Context, reset bool) {
	c, _ := ctx.Value(connKey{}).(*conn)
	if c == nil {
		return
	}
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		linger := -1 // the system's default: a graceful close
		if reset {
			linger = 0
		}
		_ = tc.SetLinger(linger)
	}
}
