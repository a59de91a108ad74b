package httplimit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// The cost of one small answer on a kept-alive connection, served by
// NewServer (net/http) and by NewFastServer (fasthttp), as the process's
// CPU time per request (client included, the same for all):
//
//	go test ./host/internal/httplimit -run - -bench Servers -benchtime 20000x
//
// "fasthttp-held-buffers" is NewFastServer without ReduceMemoryUsage and
// with an 8 KiB head buffer held by every connection: what the pod port
// would save by holding buffers between requests (docs/design.md, "Which
// server serves which port").
func BenchmarkServers(b *testing.B) {
	b.Run("net-http", func(b *testing.B) { benchServer(b, false, true) })
	b.Run("fasthttp", func(b *testing.B) { benchServer(b, true, true) })
	b.Run("fasthttp-held-buffers", func(b *testing.B) { benchServer(b, true, false) })
}

func benchServer(b *testing.B, fast, reduceMemory bool) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello world\n"))
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	c := NewConns(16)
	if fast {
		s := c.NewFastServer(h, Limits{}, nil)
		if !reduceMemory {
			s.fs.ReduceMemoryUsage, s.fs.ReadBufferSize = false, 8<<10
		}
		go s.Serve(l)
	} else {
		go c.NewServer(h, Limits{}).Serve(l)
	}
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	req := []byte("GET /x HTTP/1.1\r\nHost: x\r\nX-Kube32-Pod: default/a\r\nUser-Agent: Go\r\nAccept-Encoding: gzip\r\n\r\n")
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for range b.N {
		if _, err := conn.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
