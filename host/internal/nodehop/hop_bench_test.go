package nodehop

import (
	"context"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kube32/kube32/host/internal/httplimit"
)

// The hop between nodes by the pool and by fasthttp's client, against the
// same pod server (httplimit.FastServer, as every node's pod port): the
// time of one request on a kept-alive connection, one at a time
// ("sequential", the latency a cross-node call pays), and the process's
// CPU time per request with 32 requests in flight ("parallel", what the
// Ingress pays under load). Server and client are in the process, so
// cpu-ns/op counts both. "pool-sequential-watched" is the pool's request
// to a handler that starts a goroutine and ends it, as wazero does for
// every call of a guest function under CloseOnContextDone (its watch on
// the call's context): what that goroutine adds to a cross-node call.
//
//	go test ./host/internal/nodehop -run - -bench Hop -count 3
//
// docs/design.md ("Which server serves which port") gives the figures.
func BenchmarkHop(b *testing.B) {
	addr := startPodServer(b, false)
	for _, mode := range []struct {
		name     string
		parallel bool
	}{{"sequential", false}, {"parallel", true}} {
		b.Run("pool-"+mode.name, func(b *testing.B) { benchHop(b, mode.parallel, poolHop(b, addr)) })
		b.Run("fasthttp-client-"+mode.name, func(b *testing.B) { benchHop(b, mode.parallel, fasthttpHop(addr)) })
	}
	watched := startPodServer(b, true)
	b.Run("pool-sequential-watched", func(b *testing.B) { benchHop(b, false, poolHop(b, watched)) })
}

// hop makes one request of the benchmark and reads its whole answer; each
// goroutine of a parallel run has its own.
type hop func() func() error

// startPodServer serves a pod's small answer as a node's pod port does;
// watched, from a handler that starts a goroutine and ends it.
func startPodServer(b *testing.B, watched bool) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if watched {
			done := make(chan struct{})
			go func() { <-done }()
			defer close(done)
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("hello world\n"))
	})
	s := httplimit.NewConns(256).NewFastServer(h, httplimit.Limits{}, nil)
	go s.Serve(l)
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return l.Addr().String()
}

func poolHop(b *testing.B, addr string) hop {
	p := NewPool()
	b.Cleanup(p.CloseIdle)
	return func() func() error {
		req := &Request{Method: http.MethodGet, Target: "/", Pod: "default/a", Header: http.Header{}}
		return func() error {
			resp, err := p.Do(context.Background(), addr, req)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return err
		}
	}
}

func fasthttpHop(addr string) hop {
	c := &fasthttp.HostClient{Addr: addr, MaxConns: 256, MaxIdleConnDuration: IdleTimeout}
	return func() func() error {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://" + addr + "/")
		req.Header.Set("X-Kube32-Pod", "default/a")
		return func() error { return c.Do(req, resp) }
	}
}

func benchHop(b *testing.B, parallel bool, h hop) {
	if err := h()(); err != nil { // the first connection is not measured
		b.Fatal(err)
	}
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	if parallel {
		b.SetParallelism(16) // 32 in flight on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			do := h()
			for pb.Next() {
				if err := do(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	} else {
		do := h()
		for range b.N {
			if err := do(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
