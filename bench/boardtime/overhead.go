package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
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
	rates := make([][2][]float64, len(targets)) // target, metered|unmetered, round
	var errs int64
	for r := 0; r < o.rounds; r++ {
		for ti, t := range targets {
			for k := range clusters {
				k = (k + r) % 2 // each round starts with the other cluster
				req := t.req
				req.URL = clusters[k].IngressURL() + req.URL
				res, err := load.Measure(req, o.duration, o.concurrency)
				if err != nil {
					return 0, err
				}
				errs += res.Errors
				rates[ti][k] = append(rates[ti][k], res.Rate)
			}
		}
	}

	fmt.Printf("counting work on the request path (%s model), through the Ingress, %s, %d connections, %d rounds of %s; medians\n",
		board.Name, load.Generator(), o.concurrency, o.rounds, o.duration)
	fmt.Printf("  %-40s %12s %12s %10s\n", "request", "counted", "not counted", "time ratio")
	for ti, t := range targets {
		m, u := median(rates[ti][0]), median(rates[ti][1])
		fmt.Printf("  %-40s %8.0f req/s %6.0f req/s %9.2fx\n", t.what, m, u, u/m)
	}
	fmt.Printf("  (time ratio: the counted path's time per request over the uncounted's; aim at most 1.3x; %d errors)\n", errs)
	for ti, t := range targets {
		m, u := median(rates[ti][0]), median(rates[ti][1])
		report.Print("boardtime-counted-"+t.name, 1e6/m, 1e6/u, "µs/req")
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

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
