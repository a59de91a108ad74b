package httplimit

import "sync"

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
