package httplimit

import (
	"crypto/tls"
	"net/http"
)

// TLSState is the TLS state of r's connection on a server that serves TLS
// inside its budget (a tls.Listener given to Serve, so that a connection
// stuck in its handshake counts as idle): r.TLS is nil there, since the
// budget's connection wraps the TLS one. It is nil for a connection
// without TLS or outside a budget.
func TLSState(r *http.Request) *tls.ConnectionState {
	if r.TLS != nil {
		return r.TLS
	}
	tc, _ := r.Context().Value(connKey{}).(*conn)
	if tc == nil {
		return nil
	}
	tlsConn, ok := tc.Conn.(*tls.Conn)
	if !ok {
		return nil
	}
	st := tlsConn.ConnectionState()
	return &st
}
