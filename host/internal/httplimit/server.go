package httplimit

import (
	"io"
	"net"
	"net/http"
	"time"
)

// Server is an http.Server whose connections count against a budget and
// whose requests are bounded by Limits.
type Server struct {
	*http.Server
	conns *Conns
}

// NewServer returns a server of h with the timeouts of lim whose
// connections count against c. A request's body must arrive within
// lim.BodyTimeout of its head; reads past it fail with a timeout error.
// There is no timeout on a request in progress, so watches and event
// streams stay open as long as they run; a handler that streams calls
// Stream first, to count in the stream class.
func (c *Conns) NewServer(h http.Handler, lim Limits) *Server {
	lim = lim.orDefaults()
	s := &http.Server{
		Handler:           endStreams(bodyDeadline(h, lim.BodyTimeout)),
		ReadHeaderTimeout: lim.HeaderTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		IdleTimeout:       lim.IdleTimeout,
		ConnState:         c.setState,
		ConnContext:       withConn, // for ResetOnClose
	}
	return &Server{Server: s, conns: c}
}

// Serve accepts connections on l within the server's budget.
func (s *Server) Serve(l net.Listener) error {
	return s.Server.Serve(&listener{Listener: l, conns: s.conns})
}

// bodyDeadline sets a read deadline on the connection of every request with
// a body, lifted once the body has been read to its end. (http.Server's
// ReadTimeout would cover the body too, but it stays set while the handler
// runs, and its expiry then cancels a long request's context.)
func bodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				// A shallow copy: net/http reads the body of its own request
				// after the handler, to close a connection whose body was
				// left unread gracefully (half-closed, then a pause) rather
				// than with a reset that the client may see before the answer.
				r = r.WithContext(r.Context())
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts its connection's read deadline at the end of the
// body. A body not read to its end keeps the deadline, which then bounds
// the server's wait to discard the rest.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
