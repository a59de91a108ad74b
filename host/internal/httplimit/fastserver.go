package httplimit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// FastServer serves an http.Handler on fasthttp (docs/design.md, "Which
// server serves which port"), within the same budget and limits as
// NewServer's: the connection budget and its idle list (Conns), the head,
// body and idle timeouts, 413 past MaxBody, 408 past the body timeout, the
// slow-client guard (Stall) and ResetOnClose, and error answers as JSON.
// The handler sees an *http.Request whose body is in memory (InMemory)
// and writes through an http.ResponseWriter that a small answer fills in
// memory and a long or flushed one streams on the connection
// (fastExchange).
type FastServer struct {
	fs    *fasthttp.Server
	h     http.Handler
	conns *Conns
	base  context.Context
	// exchanges are the exchanges between requests, reused.
	exchanges sync.Pool
	// listening is the listener Serve was given; shut, that Shutdown was
	// called: a Serve that comes after it returns at once, as on net/http
	// (fasthttp's Shutdown does nothing before Serve has begun).
	mu        sync.Mutex
	listening net.Listener
	shut      bool
}

// NewFastServer returns a fasthttp server of h with the timeouts of lim
// whose connections count against c. Its requests' contexts derive from
// base (nil: context.Background()).
func (c *Conns) NewFastServer(h http.Handler, lim Limits, base context.Context) *FastServer {
	lim = lim.orDefaults()
	if base == nil {
		base = context.Background()
	}
	s := &FastServer{h: h, conns: c, base: base}
	s.exchanges.New = func() any { return newFastExchange(s) }
	s.fs = &fasthttp.Server{
		Handler:      s.serve,
		ErrorHandler: s.refuse,
		// The head within HeaderTimeout, then the body within BodyTimeout
		// of the head (headerReceived), as NewServer's bodyDeadline.
		ReadTimeout:    lim.HeaderTimeout,
		HeaderReceived: func(h *fasthttp.RequestHeader) fasthttp.RequestConfig { return bodyConfig(h, lim.BodyTimeout) },
		ExpectHandler:  expect,
		IdleTimeout:    lim.IdleTimeout,
		ConnState: func(nc net.Conn, st fasthttp.ConnState) {
			c.setState(nc, fastStates[st])
		},
		MaxRequestBodySize: MaxBody,
		ReadBufferSize:     maxHeadRead,
		WriteBufferSize:    fastWriteBuffer,
		// A reader of maxHeadRead is held only while a request is read,
		// not by a connection idle between requests.
		ReduceMemoryUsage:            true,
		NoDefaultServerHeader:        true,
		NoDefaultContentType:         true,
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		// What fasthttp would log (a client gone mid-answer) is not the
		// node's to report: its own lines keep their formats.
		Logger: log.New(io.Discard, "", 0),
	}
	return s
}

// maxHeadRead is the most of a head a FastServer reads: MaxHeaderBytes and
// the 4 KiB of slack that net/http gives it too.
const maxHeadRead = MaxHeaderBytes + 4<<10

// fastWriteBuffer holds a whole answer that fastExchange keeps in memory
// and its head, so that it goes out in one write.
const fastWriteBuffer = fastAnswerBuffer + 4<<10

// fastStates are fasthttp's connection states as net/http's, for
// Conns.setState.
var fastStates = [...]http.ConnState{
	fasthttp.StateNew:      http.StateNew,
	fasthttp.StateActive:   http.StateActive,
	fasthttp.StateIdle:     http.StateIdle,
	fasthttp.StateHijacked: http.StateHijacked,
	fasthttp.StateClosed:   http.StateClosed,
}

// Serve accepts connections on l within the server's budget.
func (s *FastServer) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.shut {
		s.mu.Unlock()
		l.Close()
		return http.ErrServerClosed
	}
	s.listening = l
	s.mu.Unlock()
	return s.fs.Serve(&listener{Listener: l, conns: s.conns, readAhead: true})
}

// Shutdown stops accepting, closes idle connections and waits for the
// answers under way, at most until ctx ends.
func (s *FastServer) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shut = true
	if s.listening != nil {
		s.listening.Close() // Serve may not have handed it to fasthttp yet
	}
	s.mu.Unlock()
	err := s.fs.ShutdownWithContext(ctx)
	if errors.Is(err, net.ErrClosed) {
		err = nil // the listener closed above, which fasthttp closes again
	}
	return err
}

// bodyConfig gives a request with a body BodyTimeout from its head to
// arrive, as NewServer does; past it the read fails and refuse answers 408.
func bodyConfig(h *fasthttp.RequestHeader, d time.Duration) fasthttp.RequestConfig {
	if h.ContentLength() == 0 {
		return fasthttp.RequestConfig{}
	}
	return fasthttp.RequestConfig{ReadTimeout: d}
}

// expect answers "Expect: 100-continue": a body that would be refused
// (past MaxBody) is refused before the client sends it, as ReadBody does
// on net/http, which sends no 100 Continue for a body it does not read.
func expect(ctx *fasthttp.RequestCtx) int {
	if n := ctx.Request.Header.ContentLength(); n > MaxBody {
		w := newErrorExchange(ctx)
		refuse(w, http.StatusRequestEntityTooLarge, bodyTooLarge(int64(n)))
		w.writeBuffered()
		return http.StatusRequestEntityTooLarge
	}
	return fasthttp.StatusContinue
}

// refuse is fasthttp's ErrorHandler: a request it could not read is
// answered as kube32 answers it on net/http. A connection that timed out
// or closed before a whole head arrived is closed without an answer, as
// net/http does.
func (s *FastServer) refuse(ctx *fasthttp.RequestCtx, err error) {
	headRead := len(ctx.Request.Header.RequestURI()) > 0
	var small *fasthttp.ErrSmallBuffer
	var status int
	var msg string
	unread := false // a body left unread: fasthttp closes the connection after the answer
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		status, msg = http.StatusRequestEntityTooLarge, bodyTooLarge(int64(ctx.Request.Header.ContentLength()))
		unread = true
	case errors.As(err, &small):
		status, msg = http.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("request head larger than %d bytes", maxHeadRead)
	case isTimeout(err) && headRead:
		status, msg, unread = http.StatusRequestTimeout, bodyTimedOut, true
	case isTimeout(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed):
		ctx.Conn().Close() // nothing to answer: the write fails, unseen
		return
	default:
		status, msg = http.StatusBadRequest, "malformed request: "+err.Error()
	}
	if tc, ok := ctx.Conn().(*conn); ok && unread {
		tc.unreadBody.Store(true)
	}
	w := newErrorExchange(ctx)
	refuse(w, status, msg)
	w.writeBuffered()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// serve runs h for one request on fasthttp's goroutine of the connection
// (fastExchange).
func (s *FastServer) serve(ctx *fasthttp.RequestCtx) {
	e := s.exchanges.Get().(*fastExchange)
	defer e.release()
	if msg := e.start(ctx); msg != "" {
		refuse(e, http.StatusBadRequest, msg)
		e.writeBuffered()
		return
	}
	e.run()
}
