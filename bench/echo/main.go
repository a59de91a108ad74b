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
	"time"

	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/bench/internal/report"
	"github.com/kube32/kube32/cli"
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
	cacheDir, err := os.MkdirTemp("", "kube32-bench-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cacheDir)
	c, err := load.Serve(ctx, cli.ServeOptions{
		IO:       cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard},
		Dir:      "", // no project: the built-in demo, whose echo is examples/echo
		CacheDir: cacheDir,
	})
	if err != nil {
		return err
	}

	plain, err := startPlainEcho()
	if err != nil {
		return err
	}
	defer plain.Close()

	body := []byte("hello, kube32")
	kube32 := postLoad(c.IngressURL()+"/echo/hello", body, duration, concurrency)
	baseline := postLoad("http://"+plain.Addr().String()+"/echo/hello", body, duration, concurrency)
	fmt.Printf("echo POST /echo/hello, %d clients, %s each\n", concurrency, duration)
	fmt.Printf("  kube32 serve (ingress -> echo pod): %8.0f req/s  (%d errors)\n", kube32.Rate, kube32.Errors)
	fmt.Printf("  plain net/http handler:             %8.0f req/s  (%d errors)\n", baseline.Rate, baseline.Errors)
	fmt.Printf("  ratio kube32/plain:                 %8.2f\n", kube32.Rate/baseline.Rate)
	report.Print("echo", kube32.Rate, baseline.Rate, "req/s")
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

// postLoad sends POST requests with body from concurrency clients for d.
func postLoad(url string, body []byte, d time.Duration, concurrency int) load.Result {
	client := load.Client(concurrency)
	defer client.CloseIdleConnections()
	return load.Run(client, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "text/plain")
		}
		return req, err
	}, d, concurrency)
}
