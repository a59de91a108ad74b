// Command echo measures requests per second through `kube32 serve`'s
// Ingress to the echo pod (POST /echo/hello on the built-in demo) against a
// plain Go net/http handler doing the same work, in one run, and prints both
// rates and their ratio.
//
//	go run ./bench/echo [-d 5s] [-c 8]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/host/cluster"
)

func main() {
	duration := flag.Duration("d", 5*time.Second, "how long to load each target")
	concurrency := flag.Int("c", 8, "concurrent clients")
	flag.Parse()
	if err := run(*duration, *concurrency); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, concurrency int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan *cluster.Cluster, 1)
	errs := make(chan error, 1)
	cacheDir, err := os.MkdirTemp("", "kube32-bench-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cacheDir)
	go func() {
		errs <- cli.RunServe(ctx, cli.ServeOptions{
			IO:       cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard},
			Dir:      "", // no project: the built-in demo, whose echo is the spec's
			CacheDir: cacheDir,
			Serving:  func(c *cluster.Cluster) { ready <- c },
		})
	}()
	var c *cluster.Cluster
	select {
	case c = <-ready:
	case err := <-errs:
		return fmt.Errorf("kube32 serve: %v", err)
	}

	plain, err := startPlainEcho()
	if err != nil {
		return err
	}
	defer plain.Close()

	body := []byte("hello, kube32")
	kube32 := load(c.IngressURL()+"/echo/hello", body, duration, concurrency)
	baseline := load("http://"+plain.Addr().String()+"/echo/hello", body, duration, concurrency)
	fmt.Printf("echo POST /echo/hello, %d clients, %s each\n", concurrency, duration)
	fmt.Printf("  kube32 serve (ingress -> echo pod): %8.0f req/s  (%d errors)\n", kube32.rate, kube32.errors)
	fmt.Printf("  plain net/http handler:             %8.0f req/s  (%d errors)\n", baseline.rate, baseline.errors)
	fmt.Printf("  ratio kube32/plain:                 %8.2f\n", kube32.rate/baseline.rate)
	return nil
}

// startPlainEcho serves the echo pod's answer from a plain net/http handler.
func startPlainEcho() (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{
			"greeting": "hello from echo", "method": r.Method, "path": r.URL.Path, "body": string(body),
		})
	}))
	return l, nil
}

type result struct {
	rate   float64
	errors int64
}

// load sends POST requests from concurrency clients for d.
func load(url string, body []byte, d time.Duration, concurrency int) result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}}
	var done, failed atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := 0; i < concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				resp, err := client.Post(url, "text/plain", bytes.NewReader(body))
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return result{rate: float64(done.Load()) / d.Seconds(), errors: failed.Load()}
}
