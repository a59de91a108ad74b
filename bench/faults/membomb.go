package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// runMemoryBomb grows the C faults pod's memory a page at a time until the
// default cap refuses (held by the instance), then makes it trap at the cap,
// and has the Go membomb pod run out of memory; it reports the process's
// RSS before, while the grown instance is held, and after it was dropped,
// and the Go pod's next answer.
func runMemoryBomb(s *server) []row {
	runtime.GC()
	before := rss()
	status, body, _ := s.podGet("faults", "/grow")
	during := rss()
	bombStatus, _, _ := s.podGet("faults", "/bomb")
	s.podGet("faults", "/check") // waits for the fresh instance
	time.Sleep(500 * time.Millisecond)
	after := rss()

	goStatus, _, _ := s.podGet("membomb", "/bomb")
	start := time.Now()
	nextStatus, nextBody, _ := s.podGet("membomb", "/")
	next := time.Since(start)
	return []row{
		{"memory.grow a page at a time", "answer at the default cap", fmt.Sprintf("%d %s", status, strings.TrimSpace(body))},
		{"memory.grow a page at a time", "RSS before / holding 8 MiB / after the trap", fmt.Sprintf("%d / %d / %d MB", before>>20, during>>20, after>>20)},
		{"memory.grow a page at a time", "answer to the request that trapped at the cap", strconv.Itoa(bombStatus)},
		{"Go pod out of memory", "answer to the request / the next one", fmt.Sprintf("%d / %d %q in %s", goStatus, nextStatus, strings.TrimSpace(nextBody), next.Round(time.Microsecond))},
	}
}

// rss is the process's resident set size in bytes (Linux), or 0.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
