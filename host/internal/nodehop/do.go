package nodehop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// NotSentError is the error of a request of which no byte reached the
// node: the node could not be reached, or the request could not be
// written. Another pod may take such a request (docs/nodes.md).
type NotSentError struct{ Err error }

func (e *NotSentError) Error() string { return "nothing sent: " + e.Err.Error() }
func (e *NotSentError) Unwrap() error { return e.Err }

// maxInterim is how many informational answers a request may get before
// its final one, as net/http's client allows.
const maxInterim = 5

// Do sends req to the pod server at addr ("host:port") and returns the
// answer once its head has arrived, without its hop-by-hop header fields.
// The caller reads the body and must close it: the connection goes back
// to the pool when the body was read to its end, and is closed otherwise.
//
// ctx's deadline is the connection's while the request and its answer
// last, and ctx's end stops them. A request that finds its reused
// connection closed by the node before any byte of it was written is sent
// again on a new connection, as is one that is safe to repeat (GET, HEAD,
// OPTIONS, TRACE) whose reused connection ended before any answer. An
// error of a request of which nothing was sent is a *NotSentError.
func (p *Pool) Do(ctx context.Context, addr string, req *Request) (*http.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, &NotSentError{Err: err}
	}
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	msg, err := appendRequest((*buf)[:0], req, addr)
	if cap(msg) <= maxKeptBuffer {
		*buf = msg[:0]
	}
	if err != nil {
		return nil, &NotSentError{Err: err}
	}
	sent := false
	for retry := false; ; retry = true {
		c, reused, err := p.get(ctx, addr, retry)
		if err != nil {
			if sent {
				return nil, err
			}
			return nil, &NotSentError{Err: err}
		}
		stop := c.watch(ctx)
		n, err := c.Write(msg)
		if err != nil {
			c.close(stop)
			if n == 0 && reused && !retry {
				continue
			}
			if n == 0 && !sent {
				return nil, &NotSentError{Err: err}
			}
			return nil, err
		}
		sent = true
		resp, err := c.readAnswer(req)
		if err != nil {
			c.close(stop)
			if reused && !retry && endedIdle(err, c) && repeatable(req) {
				// The node closed the connection unread; the request
				// is safe to repeat, here or on another pod.
				sent = false
				continue
			}
			return nil, err
		}
		RemoveHopByHop(resp.Header)
		resp.Body = &body{ReadCloser: resp.Body, pool: p, c: c, stop: stop, eof: resp.Body == http.NoBody, last: resp.Close}
		return resp, nil
	}
}

// buffers hold the requests being written; one that grew past
// maxKeptBuffer (a large body) is not kept.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxKeptBuffer = 64 << 10

// The requests ReadAnswer tells http.ReadResponse about: only whether the
// method was HEAD matters to it.
var (
	headRequest  = &http.Request{Method: http.MethodHead}
	otherRequest = &http.Request{Method: http.MethodGet}
)

// readAnswer reads the head of the final answer to req, handing the
// informational ones to req.Interim.
func (c *conn) readAnswer(req *Request) (*http.Response, error) {
	asked := otherRequest
	if req.Method == http.MethodHead {
		asked = headRequest
	}
	for i := 0; ; i++ {
		// Peek first, as net/http's client does: a connection that ends
		// before any byte of the answer fails with io.EOF itself
		// (endedIdle), which ReadResponse would report as a cut answer.
		if _, err := c.br.Peek(1); err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(c.br, asked)
		if err != nil {
			return nil, err
		}
		resp.Request = nil
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			return nil, errors.New("the node switched protocols, which a hop does not carry")
		case resp.StatusCode >= 200:
			return resp, nil
		case i == maxInterim:
			return nil, fmt.Errorf("more than %d informational answers", maxInterim)
		case req.Interim != nil:
			RemoveHopByHop(resp.Header)
			req.Interim(resp.StatusCode, resp.Header)
		}
	}
}

// endedIdle reports whether err is a reused connection's end before any
// byte of the answer: the node closed it while it lay idle.
func endedIdle(err error, c *conn) bool {
	return c.br.Buffered() == 0 && (err == io.EOF || errors.Is(err, syscall.ECONNRESET))
}

// repeatable reports whether req is safe to send twice (RFC 9110, 9.2.2,
// the methods net/http's client repeats).
func repeatable(req *Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// aLongTimeAgo is a deadline that has passed: it stops a connection's
// reads and writes at once.
var aLongTimeAgo = time.Unix(1, 0)

// watch makes ctx's deadline the connection's and ctx's end stop it, until
// the returned stop is called (nil: ctx never ends).
func (c *conn) watch(ctx context.Context) (stop func() bool) {
	if d, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(d)
		c.deadline = true
	}
	if ctx.Done() == nil {
		return nil
	}
	return context.AfterFunc(ctx, func() { _ = c.SetDeadline(aLongTimeAgo) })
}

// close closes c, whose exchange did not end cleanly.
func (c *conn) close(stop func() bool) {
	if stop != nil {
		stop()
	}
	c.Close()
}

// release puts c back in p once its answer was read to the end, unless
// ctx's end reached it or the node sent more than the answer.
func (c *conn) release(p *Pool, stop func() bool) {
	if stop != nil && !stop() || c.br.Buffered() > 0 {
		c.Close()
		return
	}
	if c.deadline {
		if c.SetDeadline(time.Time{}) != nil {
			c.Close()
			return
		}
		c.deadline = false
	}
	p.put(c)
}

// body is an answer's body: reading it to its end frees its connection
// for the next request, closing it before closes the connection.
type body struct {
	io.ReadCloser
	pool   *Pool
	c      *conn
	stop   func() bool
	eof    bool // read to its end
	last   bool // the node closes the connection after it
	closed bool
}

var errBodyClosed = errors.New("nodehop: read on a closed body")

func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errBodyClosed
	}
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// Close frees the connection: back to the pool after a body read to its
// end, closed otherwise (the rest is not drained: it may never end).
func (b *body) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if b.eof && !b.last {
		b.c.release(b.pool, b.stop)
	} else {
		b.c.close(b.stop)
	}
	return nil
}
