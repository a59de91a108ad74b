package httplimit

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/net/http/httpguts"
)

// fastAnswerBuffer is the most of an answer a FastServer keeps in memory
// before it streams it: one piece of a Spool, the most of a pod's answer
// one write sends. A whole answer in it is sent with its length, in one
// write of the head and body.
const fastAnswerBuffer = pieceSize

// fastExchange is one request of a FastServer and the http.ResponseWriter
// of its answer. The handler (a pod's callback) runs on fasthttp's
// goroutine of the connection, as net/http runs it on the connection's,
// and the answer takes one of two ways:
//
//   - in memory: the handler ends with at most fastAnswerBuffer written
//     and no Flush; fasthttp sends the head and body in one write.
//   - streamed: past fastAnswerBuffer, or at a Flush, the exchange writes
//     the head (as fasthttp would have written it) and then each write on
//     the connection itself, as net/http does: a write returns once the
//     socket has taken it. A body of unknown length goes chunked, or, to an
//     HTTP/1.0 client, unchunked and ended by the close. When the handler
//     returns, fasthttp's loop goes on with the connection, which drops the
//     empty answer fasthttp then writes (conn.answered).
//
// Either way the connection's write deadlines are the handler's to set
// (SetWriteDeadline, which Stall uses), so a client that does not read is
// dropped as on net/http, and a write past its deadline fails.
type fastExchange struct {
	s         *FastServer
	ctx       *fasthttp.RequestCtx
	conn      *conn // the connection, one of the server's listener
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

	streaming  bool // the head is on the connection: writes go there too
	chunked    bool // a streamed body of unknown length, framed in chunks
	untilClose bool // a streamed body of unknown length to an HTTP/1.0 client
	failed     error
	// writeDeadline: the handler left a write deadline on the connection.
	writeDeadline bool
	aborted       bool // the handler panicked: the connection is cut
	wire          net.Buffers
	chunkHead     []byte
}

func newFastExchange(s *FastServer) *fastExchange {
	e := &fastExchange{s: s, reqHeader: http.Header{}, header: http.Header{}}
	e.body.Reader = &e.bodyBytes
	e.getBody = e.again
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
	e.streaming, e.chunked, e.untilClose, e.failed, e.aborted = false, false, false, nil, false
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
		case "Cookie": // the client's lines, as net/http gives them
			first := len(values)
			if values = appendCookieLines(values, h.RawHeaders()); len(values) == first {
				values = append(values, string(v))
			}
			e.reqHeader[key] = values[first:len(values):len(values)]
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
	if framedTwice(h.RawHeaders()) {
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
	e.conn = ctx.Conn().(*conn) // the listener's (FastServer.Serve)
	r.RemoteAddr = e.conn.remote
	e.req = r.WithContext(e.conn.context(e.s.base))
	return ""
}

// again is the request's GetBody: the body in memory once more, as
// ReadBody's requests give it, for a pod tried after another.
func (e *fastExchange) again() (io.ReadCloser, error) {
	return newReadBody(e.ctx.Request.Body()), nil
}

// run serves the request, on fasthttp's goroutine of the connection, and
// completes its answer.
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

// end completes the answer once the handler has returned: fasthttp sends
// one in memory; a streamed one is ended here, and fasthttp's own answer
// dropped by the connection.
func (e *fastExchange) end() {
	e.conn.owner.endStream(e.conn)
	if e.status == 0 && !e.aborted {
		e.WriteHeader(http.StatusOK)
	}
	if !e.streaming {
		if !e.keepsItsDate() {
			e.writeBuffered()
			return
		}
		// fasthttp would date the answer itself: it goes on the
		// connection, as a stream of its length, with the handler's Date
		// (the handler has returned: no watch).
		e.length = e.written
		e.startStream(nil)
	}
	// The connection ends after the answer when its body ends with it,
	// or when the head said so (start: a request framed twice).
	closing := e.untilClose || e.ctx.Response.ConnectionClose()
	switch {
	case e.aborted || e.failed != nil || e.length >= 0 && e.written < e.length:
		// As net/http ends an answer it could not finish: the
		// connection closes at once, so the client sees it cut.
		e.closeConn()
		closing = true
	case e.chunked:
		e.writeWire([]byte("0\r\n\r\n"))
	}
	e.ctx.Response.Reset()
	if closing || e.failed != nil {
		e.ctx.SetConnectionClose()
	}
	e.conn.answered = true
}

// release returns e to its server's pool once fasthttp is done with it.
func (e *fastExchange) release() {
	if e.writeDeadline {
		e.writeDeadline = false
		_ = e.conn.SetWriteDeadline(time.Time{})
	}
	e.ctx, e.conn, e.req, e.tmpl.URL = nil, nil, nil, nil
	e.bodyBytes.Reset(nil)
	e.s.exchanges.Put(e)
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
	e.stream(p)
	if e.failed != nil {
		return 0, e.failed
	}
	return len(p), nil
}

// send writes p on the connection, in a chunk when the body is chunked.
func (e *fastExchange) send(p []byte) (int, error) {
	if e.failed != nil {
		return 0, e.failed
	}
	if len(p) == 0 {
		return 0, nil
	}
	if e.chunked {
		e.chunkHead = fmt.Appendf(e.chunkHead[:0], "%x\r\n", len(p))
		e.writeWire(e.chunkHead, p, crlf)
	} else {
		e.writeWire(p)
	}
	if e.failed != nil {
		return 0, e.failed
	}
	return len(p), nil
}

var crlf = []byte("\r\n")

// writeWire writes its pieces on the connection in one system call. A
// write that fails closes the connection at once, as net/http does: then
// a reset the handler armed (Stall) holds, even if the handler lifts it
// as it ends, and later writes fail with the same error.
func (e *fastExchange) writeWire(pieces ...[]byte) {
	if e.failed != nil {
		return
	}
	e.wire = append(e.wire[:0], pieces...)
	if _, err := e.wire.WriteTo(e.conn.Conn); err != nil {
		e.failed = err
		e.closeConn()
	}
	clear(e.wire[:cap(e.wire)])
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
		e.stream(nil)
	}
	return e.failed
}

// SetWriteDeadline sets the connection's write deadline (Stall). fasthttp
// sets none of its own (the server has no WriteTimeout); one the handler
// left is lifted once the answer is written (release).
func (e *fastExchange) SetWriteDeadline(t time.Time) error {
	e.writeDeadline = !t.IsZero()
	return e.conn.SetWriteDeadline(t)
}

// SetReadDeadline sets the connection's read deadline. The body is read
// before the handler runs, so only the next request would see it, and
// fasthttp sets the next request's own before it reads it.
func (e *fastExchange) SetReadDeadline(t time.Time) error { return e.conn.SetReadDeadline(t) }

// stream starts streaming the answer while the handler runs on: its
// client may leave meanwhile, which the connection's watch tells the
// request's context (watchForLeave).
func (e *fastExchange) stream(next []byte) {
	e.startStream(next)
	e.conn.watchForLeave()
}

// startStream writes the head, what is in memory and then next on the
// connection, in one system call: the answer streams from now on. The
// head is fasthttp's, as it would have written it.
func (e *fastExchange) startStream(next []byte) {
	res := &e.ctx.Response
	body := res.Body()
	start := next
	if len(body) > 0 {
		start = body
	}
	e.writeHead(start)
	h := &res.Header
	switch {
	case e.length >= 0:
	case e.ctx.Request.Header.IsHTTP11():
		e.chunked = true
		h.SetContentLength(-1) // Transfer-Encoding: chunked
	default:
		// An HTTP/1.0 client reads no chunks: as net/http, the body ends
		// with the connection.
		e.untilClose = true
		h.SetContentLength(-2) // and Connection: close
	}
	if e.ctx.Request.Header.ConnectionClose() {
		h.SetConnectionClose()
	} else if !h.ConnectionClose() && !e.ctx.Request.Header.IsHTTP11() {
		h.Set("Connection", "keep-alive") // as fasthttp tells an HTTP/1.0 client
	}
	e.streaming = true
	head := h.Header()
	if dates, dated := e.header["Date"]; dated {
		head = withDate(head, dates)
	}
	pieces := [][]byte{head, body, next}
	if e.chunked {
		pieces = pieces[:1]
		for _, p := range [][]byte{body, next} {
			if len(p) > 0 {
				pieces = append(pieces, fmt.Appendf(nil, "%x\r\n", len(p)), p, crlf)
			}
		}
	}
	e.writeWire(pieces...)
	res.ResetBody()
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
	if _, err := e.conn.Conn.Write(b.Bytes()); err != nil && e.failed == nil {
		e.failed = err
	}
}

// interimExcluded are the fields an interim answer never carries, as
// net/http leaves them out.
var interimExcluded = map[string]bool{"Content-Length": true, "Transfer-Encoding": true, "Trailer": true}

// writeHead copies the head to fasthttp's answer. As net/http, an answer
// with a body and no Content-Type gets the type sniffed from its start.
// fasthttp dates every answer itself; the handler's own Date is put in
// by the exchange where it writes the head (startStream).
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

// keepsItsDate reports whether a complete answer in memory has a Date of
// its handler's (a nil one: none), which fasthttp would replace with its
// own; an answer cut, without a body or to a HEAD request has fasthttp's.
func (e *fastExchange) keepsItsDate() bool {
	_, dated := e.header["Date"]
	return dated && !e.aborted && !e.head && bodyAllowed(e.status) && (e.length < 0 || e.written == e.length)
}

// withDate is head, as fasthttp wrote it, with the Date fields of the
// handler in place of fasthttp's; a value that is not a valid field value
// is left out, as fasthttp leaves out what it cannot write.
func withDate(head []byte, dates []string) []byte {
	at := bytes.Index(head, []byte("\r\nDate: "))
	if at < 0 {
		return head
	}
	at += len(crlf)
	end := at + bytes.Index(head[at:], crlf) + len(crlf)
	out := make([]byte, 0, len(head)+64)
	out = append(out, head[:at]...)
	out = append(out, head[end:len(head)-len(crlf)]...)
	for _, d := range dates {
		if httpguts.ValidHeaderFieldValue(d) {
			out = append(append(append(out, "Date: "...), d...), crlf...)
		}
	}
	return append(out, crlf...)
}

// bodyAllowed reports whether an answer of status may have a body.
func bodyAllowed(status int) bool {
	return (status < 100 || status > 199) && status != http.StatusNoContent && status != http.StatusNotModified
}

// closeConn closes the connection at once, as net/http does after a write
// that failed or an answer it could not finish: then a reset the handler
// armed (Stall) holds, even if the handler lifts it as it ends.
func (e *fastExchange) closeConn() {
	_ = e.conn.Close()
}
