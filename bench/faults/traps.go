package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// runTraps makes the C faults pod trap in a deep frame 1000 times and
// overflow its stack 100 times, and times the next correct answer after
// each against the same request without a fault before it: the difference
// is what a fresh instance costs.
func runTraps(s *server) []row {
	const traps = 1000
	var plain, afterTrap []time.Duration
	survived := 0
	for i := range traps {
		s.podGet("faults", "/deep")
		status, body, d := s.podGet("faults", "/check")
		if status == http.StatusOK && strings.HasPrefix(body, "static=intact") {
			survived++
		}
		afterTrap = append(afterTrap, d)
		if i%10 == 0 {
			_, _, d = s.podGet("faults", "/check")
			plain = append(plain, d)
		}
	}
	overflows := 0
	for range 100 {
		s.podGet("faults", "/recurse")
		if status, body, _ := s.podGet("faults", "/check"); status == http.StatusOK && strings.HasPrefix(body, "static=intact") {
			overflows++
		}
	}
	return []row{
		{"trap in a 3.5 KiB deep frame", "traps followed by a correct answer", fmt.Sprintf("%d/%d", survived, traps)},
		{"trap in a 3.5 KiB deep frame", "next answer after a trap, p50 (no trap before it)", fmt.Sprintf("%s (%s)", p50(afterTrap), p50(plain))},
		{"stack overflow", "overflows followed by a correct answer", fmt.Sprintf("%d/100", overflows)},
	}
}

func p50(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2].Round(time.Microsecond)
}
