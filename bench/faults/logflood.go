package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// runLogFlood asks the flood pod (internal/testkit/testpods/c/logflood.c) for
// -lines lines of -bytes bytes and reports how many bytes of its log
// reached serve's output, the rate limit's markers included.
func runLogFlood(s *server) []row {
	const fault = "log flood"
	before := s.floodLog.Load()
	start := time.Now()
	status, body, _ := s.podGet("flood", fmt.Sprintf("/?%d,%d", *floodLines, *floodBytes))
	took := time.Since(start)
	if want := fmt.Sprintf("written=%d", *floodLines); status != http.StatusOK || strings.TrimSpace(body) != want {
		return failed(fault, fmt.Errorf("the flood pod answered %d %q, want %s", status, body, want))
	}
	// The marker of the last drops comes a second after them.
	time.Sleep(2 * time.Second)
	return []row{{fault, fmt.Sprintf("bytes of serve's output for %d lines of %d B", *floodLines, *floodBytes),
		fmt.Sprintf("%d B (the pod wrote %d B in %s)", s.floodLog.Load()-before, *floodLines**floodBytes, took.Round(time.Millisecond))}}
}
