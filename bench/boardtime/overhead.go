package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/bench/internal/report"
	"github.com/kube32/kube32/host"
)

// target is a request both clusters answer.
type target struct {
	name, what string
	req        load.Request // URL: the path, after the Ingress's URL
}

// measureOverhead loads the same requests through the Ingress of a cluster
// that counts its pods' work, as serve does, and of one that does not, in
// alternating rounds, and prints their rates and the cost of counting. It
// returns the rounds of work of the CPU-heavy pod, chosen on the counting
// cluster so that a request takes o.boardMillis of board time.
func measureOverhead(o options, images string) (int, error) {
	board, err := abi.LookupBoard(o.board)
	if err != nil {
		return 0, err
	}
	objs, err := manifests()
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := func(unmetered bool) (*host.Cluster, error) {
		c, err := host.Start(context.Background(), host.Options{Images: os.DirFS(images), Objects: objs, Board: &board, Unmetered: unmetered})
		if err != nil {
			return nil, err
		}
		if err := c.WaitReady(ctx); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}
	metered, err := start(false)
	if err != nil {
		return 0, err
	}
	defer metered.Close()
	unmetered, err := start(true)
	if err != nil {
		return 0, err
	}
	defer unmetered.Close()

	client := load.Client(1)
	defer client.CloseIdleConnections()
	n, err := calibrate(client, metered.IngressURL(), o.boardMillis)
	if err != nil {
		return 0, err
	}
	// The two clusters differ in counting only: the one answers with
	// board time, the other without.
	spin := fmt.Sprintf("/spin?n=%d", n)
	if _, ok, err := boardTime(client, metered.IngressURL()+spin); err != nil || !ok {
		return 0, fmt.Errorf("the counting cluster's answer to %s: no board time in Server-Timing (%v)", spin, err)
	}
	if d, ok, err := boardTime(client, unmetered.IngressURL()+spin); err != nil || ok {
		return 0, fmt.Errorf("the cluster that does not count answered %s with a board time of %s (%v)", spin, d, err)
	}

	targets := []target{
		{"echo", "POST /echo/hello (examples/echo)", load.Request{Method: http.MethodPost, URL: "/echo/hello",
			Body: []byte("hello, kube32"), ContentType: "text/plain"}},
		{"spin", "GET " + spin + " (CPU-heavy)", load.Request{Method: http.MethodGet, URL: spin}},
	}
	clusters := []*host.Cluster{metered, unmetered}
	runs := make([][2][]sample, len(targets)) // target, counted|not, round
	var errs int64
	for r := 0; r < o.rounds; r++ {
		for ti, t := range targets {
			for k := range clusters {
				k = (k + r) % 2 // each round starts with the other cluster
				req := t.req
				req.URL = clusters[k].IngressURL() + req.URL
				res, err := measure(req, o.duration, o.concurrency)
				if err != nil {
					return 0, err
				}
				errs += res.Errors
				runs[ti][k] = append(runs[ti][k], res)
			}
		}
	}

	fmt.Printf("counting work on the request path (%s model), through the Ingress, %s, %d connections, %d rounds of %s; medians\n",
		board.Name, load.Generator(), o.concurrency, o.rounds, o.duration)
	fmt.Printf("  %-36s %24s %24s %7s\n", "request", "counted", "not counted", "ratio")
	var lines []func()
	for ti, t := range targets {
		counted, not := runs[ti][0], runs[ti][1]
		cpuC, cpuN := median(counted, sample.cpuPerRequest), median(not, sample.cpuPerRequest)
		rateC, rateN := median(counted, sample.rate), median(not, sample.rate)
		fmt.Printf("  %-36s %13.1f µs CPU/req %13.1f µs CPU/req %6.2fx\n", t.what, cpuC, cpuN, cpuC/cpuN)
		fmt.Printf("  %-36s %15.0f req/s %15.0f req/s %6.2fx\n", "", rateC, rateN, rateN/rateC)
		lines = append(lines, func() { report.Print("boardtime-counted-"+t.name, cpuC, cpuN, "µs-cpu/req") })
	}
	inProcess := "serve and the Go client"
	if load.Generator() != "Go client" {
		inProcess = "serve; the load generator runs apart"
	}
	fmt.Printf("  (ratio: counted over not counted, of this process's CPU time per request (%s)\n", inProcess)
	fmt.Printf("  and of the time per request 1/rate; aim at most 1.3x; %d errors)\n", errs)
	for _, p := range lines {
		p()
	}
	return n, nil
}

// calibrate returns the rounds of work after which GET /spin takes
// boardMillis of board time: board time grows linearly with the rounds.
func calibrate(client *http.Client, ingress string, boardMillis float64) (int, error) {
	const probe = 100_000
	var at [2]time.Duration
	for i, n := range []int{0, probe} {
		d, ok, err := boardTime(client, fmt.Sprintf("%s/spin?n=%d", ingress, n))
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("GET /spin?n=%d: no board time in Server-Timing", n)
		}
		at[i] = d
	}
	perRound := float64(at[1]-at[0]) / probe
	if perRound <= 0 {
		return 0, fmt.Errorf("GET /spin: board time %s at n=0 and %s at n=%d: it does not grow with the work", at[0], at[1], probe)
	}
	target := time.Duration(boardMillis * float64(time.Millisecond))
	return max(1, int((float64(target-at[0]))/perRound)), nil
}

// boardTime GETs url and returns the board time its answer reports in
// Server-Timing; ok is false when it reports none.
func boardTime(client *http.Client, url string) (d time.Duration, ok bool, err error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return 0, false, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	d, _, ok = abi.ParseBoardTiming(resp.Header.Values(abi.HeaderServerTiming))
	return d, ok, nil
}

// sample is what one load run of a target measured.
type sample struct {
	load.Result
	cpu time.Duration // this process's CPU time during the run
	d   time.Duration
}

func (r sample) rate() float64 { return r.Rate }

// cpuPerRequest is the process's CPU time per answer, in µs.
func (r sample) cpuPerRequest() float64 {
	return float64(r.cpu) / float64(time.Microsecond) / max(r.Rate*r.d.Seconds(), 1)
}

// measure loads req for d from concurrency connections and notes the
// process's CPU time meanwhile: on a machine shared with other work it
// moves less than the rate.
func measure(req load.Request, d time.Duration, concurrency int) (sample, error) {
	before, err := cpuTime()
	if err != nil {
		return sample{}, err
	}
	res, err := load.Measure(req, d, concurrency)
	if err != nil {
		return sample{}, err
	}
	after, err := cpuTime()
	return sample{Result: res, cpu: after - before, d: d}, err
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() (time.Duration, error) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), nil
}

// median is the median of f over runs.
func median(runs []sample, f func(sample) float64) float64 {
	xs := make([]float64, len(runs))
	for i, r := range runs {
		xs[i] = f(r)
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
