package httplimit

import (
	"sync"
	"time"
)

// readAheadSize is how much a small read of a FastServer's connection
// takes from the socket at once, as net/http's 4 KiB buffer of a
// connection does.
const readAheadSize = 4 << 10

var readAheadBuffers = sync.Pool{New: func() any { return new([readAheadSize]byte) }}

// readAheadRead reads into p, taking up to readAheadSize from the socket
// when p is smaller and keeping the rest for the next reads. fasthttp,
// which holds no buffer on a connection between requests
// (ReduceMemoryUsage), reads the first byte of each request alone and
// then the rest: with this the rest is there without a second system
// call, and the buffer goes back to its pool once read, so an idle
// connection holds none. Only the connection's serving goroutine reads.
func (tc *conn) readAheadRead(p []byte) (int, error) {
	if tc.watched != nil {
		tc.endWatch()
	}
	if err := tc.aheadErr; err != nil && tc.ahead == nil {
		tc.aheadErr = nil
		return 0, err
	}
	if tc.ahead != nil {
		n := copy(p, tc.ahead[tc.aheadAt:tc.aheadEnd])
		if tc.aheadAt += n; tc.aheadAt == tc.aheadEnd {
			readAheadBuffers.Put(tc.ahead)
			tc.ahead = nil
		}
		return n, nil
	}
	if len(p) >= readAheadSize {
		return tc.Conn.Read(p)
	}
	buf := readAheadBuffers.Get().(*[readAheadSize]byte)
	n, err := tc.Conn.Read(buf[:])
	k := copy(p, buf[:n])
	if k < n {
		// The rest is read first; an error comes again with the next read.
		tc.ahead, tc.aheadAt, tc.aheadEnd = buf, k, n
		return k, nil
	}
	readAheadBuffers.Put(buf)
	return k, err
}

// watchForLeave watches a FastServer's connection while an answer streams
// to it, as net/http reads in the background while a handler runs: when
// the client closes the connection, the context of its requests ends, so
// that a stream (SSE, a watch, followed logs) ends and gives its place
// back. fasthttp reads nothing while it writes an answer, so the watch
// owns the socket's read until the next Read takes what it read
// (endWatch). Bytes already read ahead are the next request: no watch.
// Only the connection's goroutine calls it, from the handler it runs.
func (tc *conn) watchForLeave() {
	if !tc.readAhead || tc.ahead != nil || tc.watched != nil || tc.leave == nil {
		return
	}
	done := make(chan struct{})
	tc.watched = done
	// The head's and body's read deadline is over: a stream lasts longer.
	// fasthttp sets the next request's before it reads it.
	_ = tc.Conn.SetReadDeadline(time.Time{})
	go func() {
		defer close(done)
		buf := readAheadBuffers.Get().(*[readAheadSize]byte)
		n, err := tc.Conn.Read(buf[:])
		if n == 0 {
			readAheadBuffers.Put(buf)
			buf = nil
		}
		tc.watchBuf, tc.watchN, tc.watchErr = buf, n, err
		if n == 0 && err != nil && !isTimeout(err) {
			tc.leave() // the client is gone
		}
	}()
}

// endWatch waits for the watch's read and keeps what it read for the
// reads that follow; an error with nothing read comes with the next read.
func (tc *conn) endWatch() {
	<-tc.watched
	tc.watched = nil
	if tc.watchN > 0 {
		tc.ahead, tc.aheadAt, tc.aheadEnd = tc.watchBuf, 0, tc.watchN
	} else if tc.watchErr != nil {
		tc.aheadErr = tc.watchErr
	}
	tc.watchBuf, tc.watchN, tc.watchErr = nil, 0, nil
}
