// Command boardtime measures board time (docs/boards.md, "Time on the
// board") in one run:
//
//   - what counting a pod's work costs on the request path: requests per
//     second through the Ingress to the C echo pod (examples/echo) and to
//     a CPU-heavy C pod (spin/spin.c), on a cluster that counts work, as serve
//     always does, and on one that does not (host.Options.Unmetered), in
//     alternating rounds; the aim is at most 1.3× the unmetered path's
//     time per request;
//
//   - --board-clock: requests per second of the CPU-heavy pod under
//     `serve --board esp32 --board-clock`, loaded by concurrent clients,
//     beside the model's prediction, 1 / the board time per request that
//     the answers' Server-Timing headers report (the node's one
//     interpreter runs one callback at a time); they should agree within
//     10%.
//
//     go run ./bench/boardtime [-d 2s] [-c 32] [-rounds 5] [-board esp32] [-board-ms 50] [-clock-d 10s] [-clients 6]
//
// The pods are compiled with clang as `kube32 build` compiles C pods. The
// Ingress load generator of the first part is wrk when it is installed
// (bench/internal/load); the second uses its own Go clients, which read
// each answer's Server-Timing.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	var o options
	flag.DurationVar(&o.duration, "d", 2*time.Second, "how long to load each target in each round (metered vs unmetered)")
	flag.IntVar(&o.concurrency, "c", 32, "concurrent connections (metered vs unmetered)")
	flag.IntVar(&o.rounds, "rounds", 5, "rounds of metered vs unmetered; each figure is the median of its rounds")
	flag.StringVar(&o.board, "board", "esp32", "the board of the cost model and of --board-clock")
	flag.Float64Var(&o.boardMillis, "board-ms", 50, "board time per request of the CPU-heavy pod, in ms: its rounds of work are chosen for it")
	flag.DurationVar(&o.clockDuration, "clock-d", 10*time.Second, "how long to load the pod under --board-clock")
	flag.IntVar(&o.clients, "clients", 6, "concurrent clients under --board-clock")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	duration      time.Duration
	concurrency   int
	rounds        int
	board         string
	boardMillis   float64
	clockDuration time.Duration
	clients       int
}

func run(o options) error {
	if o.rounds < 1 || o.concurrency < 1 || o.clients < 1 || o.boardMillis <= 0 {
		return fmt.Errorf("-rounds, -c, -clients and -board-ms must be positive")
	}
	images, err := buildPods()
	if err != nil {
		return err
	}
	defer os.RemoveAll(images)
	rounds, err := measureOverhead(o, images)
	if err != nil {
		return err
	}
	return measureClock(o, images, rounds)
}
