package testhttp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// Scripted serves raw HTTP on l until the test ends: it answers its i-th
// request (from 0, over all connections) with the bytes answer(i) returns,
// written as they are. An empty answer closes the connection without one;
// an answer starting with "!" closes it after the rest. It returns the
// number of connections accepted so far.
func Scripted(t testing.TB, l net.Listener, answer func(i int) string) *atomic.Int32 {
	t.Helper()
	t.Cleanup(func() { l.Close() })
	var accepted, count atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					a := answer(int(count.Add(1) - 1))
					if a == "" {
						return
					}
					last := strings.HasPrefix(a, "!")
					if _, err := io.WriteString(c, strings.TrimPrefix(a, "!")); err != nil || last {
						return
					}
				}
			}()
		}
	}()
	return &accepted
}
