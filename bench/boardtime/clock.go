package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/bench/internal/report"
)

// measureClock runs `serve --board B --board-clock` with the CPU-heavy
// pod, loads GET /spin?n=rounds from o.clients concurrent clients for
// o.clockDuration, and prints the requests per second measured beside the
// model's prediction: the node's one interpreter runs one callback at a
// time, each for its board time, so the rate is 1 / the mean board time
// that the answers report in Server-Timing.
func measureClock(o options, images string, rounds int) error {
	c, stop, err := load.ServeFresh("--images", images, "-f", spinManifest(), "--board", o.board, "--board-clock")
	if err != nil {
		return err
	}
	defer stop()
	url := fmt.Sprintf("%s/spin?n=%d", c.IngressURL(), rounds)
	client := load.Client(o.clients)
	defer client.CloseIdleConnections()
	if _, ok, err := boardTime(client, url); err != nil || !ok {
		return fmt.Errorf("GET %s under --board-clock: no board time in Server-Timing (%v)", url, err)
	}

	// The host's own timer lateness during the run: --board-clock pads
	// each callback with a timer, which a loaded machine wakes late.
	lateness := make(chan time.Duration, 1)
	go func() { lateness <- timerLateness(o.boardMillis, o.clockDuration) }()

	var (
		mu       sync.Mutex
		answered int
		board    time.Duration // the sum of the answers' board times
		last     time.Time     // when the last answer came
		failed   int
		firstErr error
	)
	start := time.Now()
	deadline := start.Add(o.clockDuration)
	var wg sync.WaitGroup
	for i := 0; i < o.clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				d, ok, err := boardTime(client, url)
				mu.Lock()
				switch {
				case err != nil || !ok:
					failed++
					if firstErr == nil {
						firstErr = fmt.Errorf("GET %s: board time %v, %v", url, ok, err)
					}
				default:
					answered++
					board += d
					last = time.Now()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	late := <-lateness
	if answered == 0 {
		return fmt.Errorf("no answers under --board-clock: %v", firstErr)
	}
	mean := board / time.Duration(answered)
	measured := float64(answered) / last.Sub(start).Seconds()
	predicted := 1 / mean.Seconds()
	ratio := measured / predicted
	within := "yes"
	if ratio < 0.9 || ratio > 1.1 {
		within = "NO"
	}
	fmt.Printf("serve --board %s --board-clock: GET /spin?n=%d (CPU-heavy), %d Go clients, %s\n", o.board, rounds, o.clients, o.clockDuration)
	fmt.Printf("  board time per request (Server-Timing, mean of %d): %s\n", answered, mean.Round(time.Microsecond))
	fmt.Printf("  measured:                %8.2f req/s  (%d errors)\n", measured, failed)
	fmt.Printf("  model, 1 / board time:   %8.2f req/s\n", predicted)
	fmt.Printf("  ratio measured/model:    %8.3f  (within 10%%: %s)\n", ratio, within)
	fmt.Printf("  this machine's timers woke %s late on average during the run (a plain Go timer of %gms);\n", late.Round(time.Microsecond), o.boardMillis)
	fmt.Printf("  that alone gives %.2f req/s (ratio %.3f)\n", 1/(mean+late).Seconds(), mean.Seconds()/(mean+late).Seconds())
	if failed > 0 {
		fmt.Printf("  first error: %v\n", firstErr)
	}
	report.Print("boardtime-clock", measured, predicted, "req/s")
	return nil
}

// timerLateness is how late, on average, a timer of boardMillis fires on
// this machine over d: the part of --board-clock's padding that is the
// host's, not kube32's.
func timerLateness(boardMillis float64, d time.Duration) time.Duration {
	want := time.Duration(boardMillis * float64(time.Millisecond))
	var late time.Duration
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); n++ {
		start := time.Now()
		t := time.NewTimer(want)
		<-t.C
		late += time.Since(start) - want
	}
	return late / time.Duration(max(n, 1))
}
