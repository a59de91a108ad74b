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
// left alone. The wish is applied when the connection closes, so that
// arming and lifting it around every answer costs no system call.
func ResetOnClose(ctx context.Context, reset bool) {
	if c, _ := ctx.Value(connKey{}).(*conn); c != nil {
		c.reset.Store(reset)
	}
}

// applyReset sets the socket to end with a reset when the connection asked
// for one (ResetOnClose).
func (tc *conn) applyReset() {
	if !tc.reset.Load() {
		return
	}
	if c, ok := tc.Conn.(*net.TCPConn); ok {
		_ = c.SetLinger(0)
	}
}
