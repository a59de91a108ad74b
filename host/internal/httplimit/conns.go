package httplimit

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxConns is the budget of open connections of a process: half its
// open-file limit, so that the other half is left to pods, outgoing calls,
// the client side of the nodes' own connections and files, and at most
// MaxConnsDefault.
func DefaultMaxConns() int {
	n := openFileLimit() / 2
	if n <= 0 || n > MaxConnsDefault {
		return MaxConnsDefault
	}
	return n
}

// Conns is a budget of open connections shared by the servers of a
// process. A connection accepted when the budget is spent takes the slot of
// the connection that has been idle longest (a kept-alive connection
// between requests, or one whose first request has not arrived), as nginx
// reuses its keep-alive connections; with none idle, the new one is closed.
// A connection serving a request, a watch or an event stream is never idle.
//
// A connection whose request becomes a stream (Stream) moves from the
// short class to the stream class, which holds at most the budget less
// ShortReservePercent, so that streams never take the slots of short
// requests (streams.go).
type Conns struct {
	max int
	// maxStreams and maxPublic bound the stream class and its public
	// streams.
	maxStreams, maxPublic int

	mu   sync.Mutex
	open int
	idle list.List // of *conn, longest idle first
	// streams and public count the stream class and its public streams;
	// perClient the public streams of each client address.
	streams, public int
	perClient       map[string]int
}

// NewConns returns a budget of n connections (DefaultMaxConns when n is 0
// or less).
func NewConns(n int) *Conns {
	if n <= 0 {
		n = DefaultMaxConns()
	}
	maxStreams := max(1, n-(n*ShortReservePercent+99)/100)
	maxPublic := min(maxStreams, max(1, n*PublicStreamsPercent/100))
	return &Conns{max: n, maxStreams: maxStreams, maxPublic: maxPublic, perClient: map[string]int{}}
}

// Max is the budget.
func (c *Conns) Max() int { return c.max }

// Open is how many connections are open now.
func (c *Conns) Open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// idleLen is how many connections are idle now.
func (c *Conns) idleLen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.idle.Len()
}

// admit counts nc in, closing the longest-idle connection when the budget
// is spent; it reports false when there is none to close.
func (c *Conns) admit(nc net.Conn) (*conn, bool) {
	c.mu.Lock()
	var evict *conn
	if c.open >= c.max {
		e := c.idle.Front()
		if e == nil {
			c.mu.Unlock()
			return nil, false
		}
		evict = c.idle.Remove(e).(*conn)
		evict.idle = nil
	}
	c.open++
	c.mu.Unlock()
	if evict != nil {
		evict.Close()
	}
	return &conn{Conn: nc, owner: c}, true
}

// setState follows a connection through http.Server.ConnState: it is idle
// while new or idle, and leaves the idle list when a request begins, when
// it is hijacked and when it closes.
func (c *Conns) setState(nc net.Conn, state http.ConnState) {
	tc, ok := nc.(*conn)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew, http.StateIdle:
		if tc.idle == nil && !tc.closed {
			tc.idle = c.idle.PushBack(tc)
		}
	default:
		if tc.idle != nil {
			c.idle.Remove(tc.idle)
			tc.idle = nil
		}
	}
}

// release counts a closed connection out.
func (c *Conns) release(tc *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tc.idle != nil {
		c.idle.Remove(tc.idle)
		tc.idle = nil
	}
	tc.closed = true
	c.open--
	c.endStreamLocked(tc)
}

// conn is an accepted connection counted in its owner's budget.
type conn struct {
	net.Conn
	owner *Conns
	once  sync.Once
	// idle is its element of owner.idle while idle; idle and closed are
	// guarded by owner.mu.
	idle   *list.Element
	closed bool
	// stream is set while the connection is in the stream class, public
	// with client (its address's key) while that stream is public; all
	// guarded by owner.mu.
	stream, public bool
	client         string
	// reset makes Close end the connection with a reset (ResetOnClose).
	reset atomic.Bool
	// unreadBody makes Close pause before it closes: a FastServer refused
	// a request whose body it did not read.
	unreadBody atomic.Bool
	// ctx and remote are its requests' context and client address on a
	// FastServer (context).
	ctx    context.Context
	remote string
	// readAhead makes Read take more than asked (readAheadRead), whose
	// rest is ahead[aheadAt:aheadEnd].
	readAhead         bool
	ahead             *[readAheadSize]byte
	aheadAt, aheadEnd int
	aheadErr          error // what a watch's read met, for the next read
	// leave ends ctx; watched is closed once the read of a watch
	// (watchForLeave) is done, with what it read in watchBuf[:watchN] or
	// the error watchErr.
	leave    context.CancelFunc
	watched  chan struct{}
	watchBuf *[readAheadSize]byte
	watchN   int
	watchErr error
	// answered drops the next write: a FastServer's answer that streamed
	// on the connection itself is complete, and fasthttp's own (empty)
	// answer must not follow it (fastExchange.end).
	answered bool
}

func (tc *conn) Write(p []byte) (int, error) {
	if tc.answered {
		tc.answered = false
		return len(p), nil
	}
	return tc.Conn.Write(p)
}

func (tc *conn) Read(p []byte) (int, error) {
	tc.answered = false // fasthttp writes an answer before it reads on
	if tc.readAhead {
		return tc.readAheadRead(p)
	}
	return tc.Conn.Read(p)
}

func (tc *conn) Close() error {
	if tc.unreadBody.Swap(false) {
		// As net/http closes a connection whose request body it left
		// unread: half-closed, then a pause, so that the client reads the
		// answer before a reset from the unread body could discard it.
		_ = tc.CloseWrite()
		time.Sleep(unreadBodyPause)
	}
	tc.applyReset()
	err := tc.Conn.Close()
	tc.once.Do(func() { tc.owner.release(tc) })
	return err
}

// unreadBodyPause is net/http's pause before it closes a connection whose
// request body it left unread (its rstAvoidanceDelay).
const unreadBodyPause = 500 * time.Millisecond

// CloseWrite half-closes the connection, which net/http does before it
// closes one whose request body it left unread, so that the client reads
// the answer before the end of the connection.
func (tc *conn) CloseWrite() error {
	if cw, ok := tc.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// listener admits each accepted connection into a budget; a connection
// refused for want of an idle one to close is closed at once.
type listener struct {
	net.Listener
	conns     *Conns
	readAhead bool // for a FastServer (readAheadRead)
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc, ok := l.conns.admit(nc); ok {
			tc.readAhead = l.readAhead
			return tc, nil
		}
		nc.Close()
	}
}
