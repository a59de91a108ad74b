package httplimit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// fastAnswerBuffer is the most of an answer a FastServer keeps in memory
// before it streams it: one piece of a Spool, the most of a pod's answer
// one write sends. A whole answer in it is sent with its length, in one
// write of the head and body.
const fastAnswerBuffer = pieceSize

// fastExchange is one request of a FastServer and the http.ResponseWriter
// of its answer. fasthttp writes an answer once its handler returns, so
// the handler (a pod's callback) runs on the exchange's goroutine (loop),
// which the exchange keeps between requests, and the answer takes one of
// two ways:
//
//   - in memory: the handler ends with at most fastAnswerBuffer written
//     and no Flush; fasthttp sends the head and body in one write.
//   - streamed: past fastAnswerBuffer, or at a Flush, the head is handed to
//     fasthttp and each later write is handed to fasthttp's goroutine
//     (fastStream) and returns once it is on the wire. A body of unknown
//     length goes chunked, each write flushed.
//
// Either way the connection's write deadlines are the handler's to set
// (SetWriteDeadline, which Stall uses), so a client that does not read is
// dropped as on net/http, and a write past its deadline fails.
type fastExchange struct {
	s         *FastServer
	ctx       *fasthttp.RequestCtx
	req       *http.Request
	tmpl      http.Request // filled per request; req is a copy with the connection's context
	reqHeader http.Header
	values    []string // reqHeader's values, one backing array
	body      readBody
	bodyBytes bytes.Reader
	getBody   func() (io.ReadCloser, error) // e.again, made once

	header  http.Header
	status  int
	length  int64 // the declared Content-Length, -1 for none
	written int64
	head    bool // a HEAD request: the body is counted, not sent

	// ready tells serve that the answer is ready for fasthttp, in memory
	// (the handler has returned) or as a stream (streaming).
	ready     chan struct{}
	work      chan struct{} // a request for loop to run
	streaming bool
	pending   []byte
	pieces    chan []byte // to fastStream, closed when the handler returns
	acks      chan error  // from fastStream, one per piece
	failed    error       // a write to the client failed: later writes fail at once
	// writeDeadline: the handler left a write deadline on the connection.
	writeDeadline bool
	aborted       bool // the handler panicked: the connection is cut
	drained       bool // fastStream has seen pieces closed
	unacked       bool // fastStream.Read took a piece it has not acknowledged
	stream        fastStream
}

func newFastExchange(s *FastServer) *fastExchange {
	e := &fastExchange{s: s, reqHeader: http.Header{}, header: http.Header{},
		ready: make(chan struct{}, 1), work: make(chan struct{}, 1), acks: make(chan error, 1)}
	e.body.Reader = &e.bodyBytes
	e.getBody = e.again
	e.stream.e = e
	return e
}

// newErrorExchange is an exchange for an answer fasthttp's own goroutine
// writes at once (refuse, expect): always in memory.
func newErrorExchange(ctx *fasthttp.RequestCtx) *fastExchange {
	e := &fastExchange{header: http.Header{}, ctx: ctx, length: -1}
	ctx.Response.ResetBody()
	return e
}

// start reads ctx's request into e.req, with its body in memory (InMemory);
// it returns why the request cannot be served, or "".
func (e *fastExchange) start(ctx *fasthttp.RequestCtx) string {
	e.ctx = ctx
	h := &ctx.Request.Header
	clear(e.header)
	e.status, e.length, e.written = 0, -1, 0
	e.head = h.IsHead()
	e.streaming, e.failed, e.aborted, e.drained, e.unacked = false, nil, false, false, false
	e.pending = e.pending[:0]
	r := &e.tmpl
	r.Method = methodName(h.Method())
	r.RequestURI = string(h.RequestURI())
	u, err := parseRequestURI(r.RequestURI)
	if err != nil {
		return "malformed request target: " + err.Error()
	}
	r.URL = u
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	if !h.IsHTTP11() {
		r.Proto, r.ProtoMinor = "HTTP/1.0", 0
	}
	clear(e.reqHeader)
	values := e.values[:0]
	r.Host = ""
	for k, v := range h.All() {
		key := headerKey(k)
		switch key {
		case "Host":
			r.Host = string(v)
			continue
		case "Transfer-Encoding": // the body is read and decoded
			continue
		}
		values = append(values, string(v))
		if old, ok := e.reqHeader[key]; ok {
			e.reqHeader[key] = append(old[:len(old):len(old)], values[len(values)-1])
		} else {
			e.reqHeader[key] = values[len(values)-1 : len(values) : len(values)]
		}
	}
	e.values = values
	if r.Host == "" && u.Host != "" {
		r.Host = u.Host
	}
	r.Header = e.reqHeader
	if h.ContentLength() == -1 && framedTwice(h.RawHeaders()) {
		// Content-Length beside Transfer-Encoding may be an attempt at
		// request smuggling (RFC 9112, section 6.3): the body is read as
		// chunked, and the connection ends with the answer.
		ctx.SetConnectionClose()
	}
	r.Close = h.ConnectionClose()
	r.TransferEncoding = nil
	b := ctx.Request.Body()
	r.ContentLength = int64(len(b))
	r.Body, r.GetBody = http.NoBody, nil
	if len(b) > 0 {
		e.bodyBytes.Reset(b)
		r.Body, r.GetBody = &e.body, e.getBody
	}
	tc, _ := ctx.Conn().(*conn)
	var cctx context.Context = e.s.base
	r.RemoteAddr = ""
	if tc != nil {
		cctx = tc.context(e.s.base)
		r.RemoteAddr = tc.remote
	}
	e.req = r.WithContext(cctx)
	return ""
}

// again is the request's GetBody: the body in memory once more, as
// ReadBody's requests give it, for a pod tried after another.
func (e *fastExchange) again() (io.ReadCloser, error) {
	return newReadBody(e.ctx.Request.Body()), nil
}

// run serves the request on the handler's goroutine and tells serve, or
// fastStream, that the answer is complete.
func (e *fastExchange) run() {
	defer e.end()
	defer func() {
		if v := recover(); v != nil {
			// As net/http: the connection is cut, the panic logged, the
			// process goes on.
			e.aborted = true
			if v != http.ErrAbortHandler {
				log.Printf("http: panic serving %s: %v\n%s", e.req.RemoteAddr, v, debug.Stack())
			}
		}
	}()
	e.s.h.ServeHTTP(e, e.req)
}

// end completes the answer: after it the handler's goroutine leaves e
// alone.
func (e *fastExchange) end() {
	if tc, ok := e.req.Context().Value(connKey{}).(*conn); ok {
		tc.owner.endStream(tc)
	}
	if e.status == 0 && !e.aborted {
		e.WriteHeader(http.StatusOK)
	}
	if e.streaming {
		if e.aborted {
			// As net/http ends an aborted answer: the connection closes
			// at once, and what fasthttp still holds of it fails rather
			// than waiting on a client that may never read it.
			e.closeConn()
		}
		close(e.pieces)
		return
	}
	e.ready <- struct{}{}
}

// release returns e to its server's pool once fasthttp is done with it.
func (e *fastExchange) release() {
	if e.writeDeadline {
		e.writeDeadline = false
		_ = e.ctx.Conn().SetWriteDeadline(time.Time{})
	}
	e.ctx, e.req, e.tmpl.URL = nil, nil, nil
	e.bodyBytes.Reset(nil)
	select {
	case e.s.idle <- e:
	default:
		close(e.work) // enough are idle: its goroutine ends
	}
}

// loop runs the exchange's requests on its goroutine, one per work, until
// work is closed.
func (e *fastExchange) loop() {
	for range e.work {
		e.run()
	}
}

func (e *fastExchange) Header() http.Header { return e.header }

// WriteHeader records the final status, or sends an interim (1xx) one at
// once. A malformed Content-Length is dropped, as net/http drops it.
func (e *fastExchange) WriteHeader(code int) {
	if e.status != 0 {
		return
	}
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		e.writeInterim(code)
		return
	}
	e.status = code
	if cl := e.header.Get("Content-Length"); cl != "" {
		if v, err := strconv.ParseInt(cl, 10, 64); err == nil && v >= 0 {
			e.length = v
		} else {
			e.header.Del("Content-Length")
		}
	}
}

func (e *fastExchange) Write(p []byte) (int, error) {
	if e.status == 0 {
		e.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(e.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if e.length >= 0 && e.written+int64(len(p)) > e.length {
		return 0, http.ErrContentLength
	}
	e.written += int64(len(p))
	switch {
	case e.head:
		return len(p), nil
	case e.streaming:
		return e.send(p)
	case len(e.ctx.Response.Body())+len(p) <= fastAnswerBuffer:
		e.ctx.Response.AppendBody(p)
		return len(p), nil
	}
	e.startStream(false, p)
	return e.send(p)
}

// send hands p to fastStream and waits until fasthttp has taken it.
func (e *fastExchange) send(p []byte) (int, error) {
	if e.failed != nil {
		return 0, e.failed
	}
	if len(p) == 0 {
		return 0, nil
	}
	e.pieces <- p
	if err := <-e.acks; err != nil {
		e.failed = err
		return 0, err
	}
	return len(p), nil
}

// Flush sends the head and what is written so far: the answer streams
// from now on.
func (e *fastExchange) Flush() { _ = e.FlushError() }

// FlushError is Flush for http.ResponseController: it fails once a write
// to the client has.
func (e *fastExchange) FlushError() error {
	if e.status == 0 {
		e.WriteHeader(http.StatusOK)
	}
	if !e.streaming && !e.head && bodyAllowed(e.status) {
		e.startStream(true, nil)
	}
	return e.failed
}

// SetWriteDeadline sets the connection's write deadline (Stall). fasthttp
// sets none of its own (the server has no WriteTimeout); one the handler
// left is lifted once the answer is written (release).
func (e *fastExchange) SetWriteDeadline(t time.Time) error {
	e.writeDeadline = !t.IsZero()
	return e.ctx.Conn().SetWriteDeadline(t)
}

// SetReadDeadline sets the connection's read deadline. The body is read
// before the handler runs, so only the next request would see it, and
// fasthttp sets the next request's own before it reads it.
func (e *fastExchange) SetReadDeadline(t time.Time) error { return e.ctx.Conn().SetReadDeadline(t) }

// startStream hands the head to fasthttp with a body that streams from
// the handler's writes, beginning with what is in memory; serve returns
// and fasthttp writes it. flushHead sends the head at once (a Flush);
// next is the write that follows, whose start types an answer when
// nothing is in memory.
func (e *fastExchange) startStream(flushHead bool, next []byte) {
	e.pending = append(e.pending[:0], e.ctx.Response.Body()...)
	e.ctx.Response.ResetBody()
	if len(e.pending) > 0 {
		next = e.pending
	}
	e.writeHead(next)
	e.ctx.Response.ImmediateHeaderFlush = flushHead
	e.pieces = make(chan []byte)
	if e.length < 0 && !e.ctx.Request.Header.IsHTTP11() {
		// An HTTP/1.0 client reads no chunks: as net/http, the body ends
		// with the connection, written on it directly.
		e.ctx.Response.Header.SetContentLength(-2) // and Connection: close
		e.ctx.HijackSetNoResponse(true)
		e.ctx.Hijack(e.stream.untilClose)
	} else {
		e.ctx.Response.SetBodyStream(&e.stream, int(e.length))
	}
	if tc, ok := e.ctx.Conn().(*conn); ok {
		tc.watchForLeave()
	}
	e.streaming = true
	e.ready <- struct{}{}
}

// writeBuffered hands fasthttp the answer in memory, once the handler has
// returned.
func (e *fastExchange) writeBuffered() {
	res := &e.ctx.Response
	if e.aborted {
		res.Reset()
		res.SetConnectionClose()
		e.ctx.Conn().Close() // nothing is sent, as net/http sends nothing
		return
	}
	body := res.Body()
	e.writeHead(body)
	switch {
	case e.head:
		if e.length < 0 && e.written > 0 {
			res.Header.SetContentLength(int(e.written))
		}
	case e.length >= 0 && e.written < e.length && bodyAllowed(e.status):
		// Less than the head declares: the client must see the answer cut,
		// as net/http cuts the connection.
		short := bytes.NewReader(append([]byte(nil), body...))
		res.SetBodyStream(short, int(e.length))
	}
}

// writeInterim sends an interim answer with the header as it is, as
// net/http does (103 Early Hints with its Link fields), to an HTTP/1.1
// client; an HTTP/1.0 one gets none (RFC 9110, section 15.2). fasthttp
// writes only final answers, and has flushed the connection's earlier
// ones before it reads a request (ReduceMemoryUsage), so the interim one
// is written on the connection itself, in order.
func (e *fastExchange) writeInterim(code int) {
	if !e.ctx.Request.Header.IsHTTP11() || code == http.StatusContinue {
		// 100 Continue is fasthttp's to send, before it reads the body
		// (expect); once the handler runs, the body is read.
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	_ = e.header.WriteSubset(&b, interimExcluded)
	b.WriteString("\r\n")
	if _, err := e.ctx.Conn().Write(b.Bytes()); err != nil && e.failed == nil {
		e.failed = err
	}
}

// interimExcluded are the fields an interim answer never carries, as
// net/http leaves them out.
var interimExcluded = map[string]bool{"Content-Length": true, "Transfer-Encoding": true, "Trailer": true}

// writeHead copies the head to fasthttp's answer. As net/http, an answer
// with a body and no Content-Type gets the type sniffed from its start.
func (e *fastExchange) writeHead(start []byte) {
	h := &e.ctx.Response.Header
	h.SetStatusCode(e.status)
	for k, vs := range e.header {
		switch k {
		case "Content-Length", "Transfer-Encoding": // framing is fasthttp's
			continue
		}
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	if _, typed := e.header["Content-Type"]; !typed && len(start) > 0 && bodyAllowed(e.status) {
		h.SetContentType(http.DetectContentType(start))
	}
	if e.length >= 0 {
		h.SetContentLength(int(e.length))
	}
}

// bodyAllowed reports whether an answer of status may have a body.
func bodyAllowed(status int) bool {
	return (status < 100 || status > 199) && status != http.StatusNoContent && status != http.StatusNotModified
}

// fastStream is the body of a streamed answer: fasthttp's goroutine writes
// what the handler's goroutine hands it (WriteTo), then releases the
// exchange (Close) once the handler has returned, so that the request
// (its body is fasthttp's) outlives the handler.
type fastStream struct{ e *fastExchange }

// errStreamClosed is what the handler's writes get once fasthttp has
// given up on the answer.
var errStreamClosed = errors.New("the connection was closed")

// errHandlerPanicked cuts an answer whose handler panicked.
var errHandlerPanicked = errors.New("the handler panicked")

// SupportsBodyWriteTo lets fasthttp use WriteTo (fasthttp.BodyWriterTo).
func (*fastStream) SupportsBodyWriteTo() bool { return true }

// WriteTo writes the answer as it comes: each piece to w (fasthttp's
// buffer, flushed piece by piece when chunked), acknowledged with the
// write's error.
func (s *fastStream) WriteTo(w io.Writer) (int64, error) {
	e := s.e
	var n int64
	var err error
	if len(e.pending) > 0 {
		k, werr := w.Write(e.pending)
		n, err = int64(k), werr
	}
	for p := range e.pieces {
		if err == nil {
			var k int
			k, err = w.Write(p)
			n += int64(k)
			if f, ok := w.(interface{ Flush() error }); ok && err == nil {
				// On the wire before the handler writes on, as on
				// net/http: a client that takes nothing blocks the
				// handler's write, which fails at its deadline.
				err = f.Flush()
			}
			if err != nil {
				e.closeConn()
			}
		}
		e.acks <- err
	}
	e.drained = true
	if err == nil && e.aborted {
		err = errHandlerPanicked
	}
	return n, err
}

// closeConn closes the connection at once when a write to it failed, as
// net/http does: then a reset the handler armed (Stall) holds, even if
// the handler lifts it as it ends.
func (e *fastExchange) closeConn() {
	if tc, ok := e.ctx.Conn().(*conn); ok {
		_ = tc.Close()
	}
}

// untilClose writes the head and the body of an answer delimited by the
// end of the connection (fasthttp.HijackHandler), which fasthttp closes
// once it returns.
func (s *fastStream) untilClose(c net.Conn) {
	if _, err := c.Write(s.e.ctx.Response.Header.Header()); err == nil {
		_, _ = s.WriteTo(c)
	}
	s.Close() // fails the handler's writes that WriteTo did not take
}

// Read is the way to the body without WriteTo, which fasthttp takes
// when it does not use WriteTo.
func (s *fastStream) Read(p []byte) (int, error) {
	e := s.e
	for len(e.pending) == 0 {
		if e.unacked {
			// fasthttp writes and flushes each chunk before it reads
			// again: the last piece is on the wire.
			e.unacked = false
			e.acks <- nil
		}
		piece, ok := <-e.pieces
		if !ok {
			e.drained = true
			if e.aborted {
				return 0, errHandlerPanicked
			}
			return 0, io.EOF
		}
		e.pending = append(e.pending, piece...)
		e.unacked = true
	}
	n := copy(p, e.pending)
	e.pending = e.pending[:copy(e.pending, e.pending[n:])]
	return n, nil
}

// Close waits for the handler to return, failing its writes, and frees
// the exchange. fasthttp closes a body it did not write to the end only
// when a write failed: then the connection closes at once, as net/http
// closes it, while the handler's stall guard is still armed, so that a
// client that stopped reading is reset rather than left to a close the
// kernel may never finish.
func (s *fastStream) Close() error {
	e := s.e
	if !e.drained {
		e.closeConn()
	}
	if e.unacked {
		e.unacked = false
		e.acks <- errStreamClosed
	}
	if !e.drained {
		for range e.pieces {
			e.acks <- errStreamClosed
		}
	}
	e.release()
	return nil
}
