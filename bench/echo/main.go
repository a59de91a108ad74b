// Command echo measures requests per second through `kube32 serve`'s
// Ingress to the echo pod (POST /echo/hello on the built-in demo) against a
// plain Go net/http handler doing the same work, in one run, and prints both
// rates and their ratio.
//
//	go run ./bench/echo [-d 5s] [-c 32]
//
// The load generator is wrk when it is installed (bench/internal/load).
package main

import (
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
)

// The profiles -cpuprofile and -memprofile ask for.
var cpuProfile, memProfile string

func main() {
	duration := flag.Duration("d", 5*time.Second, "how long to load each target")
	concurrency := flag.Int("c", 32, "concurrent connections")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of kube32's Ingress run to this file")
	flag.StringVar(&memProfile, "memprofile", "", "write an allocation profile (from the start to the end of kube32's Ingress run) to this file")
	flag.Parse()
	if err := run(*duration, *concurrency); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, concurrency int) error {
	c, stop, err := load.ServeFresh() // no project: the built-in demo, whose echo is examples/echo
	if err != nil {
		return err
	}
	defer stop()

	plain, err := startPlainEcho()
	if err != nil {
		return err
	}
	defer plain.Close()

	post := func(base string) (load.Result, error) {
		return load.Measure(load.Request{Method: http.MethodPost, URL: base + "/echo/hello",
			Body: []byte("hello, kube32"), ContentType: "text/plain"}, duration, concurrency)
	}
	stopProfile, err := load.Profile(cpuProfile, memProfile)
	if err != nil {
		return err
	}
	kube32, err := post(c.IngressURL())
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	baseline, err := post("http://" + plain.Addr().String())
	if err != nil {
		return err
	}
	fmt.Printf("echo POST /echo/hello, %s, %d connections, %s each\n", load.Generator(), concurrency, duration)
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
