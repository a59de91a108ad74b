package abi

import (
	"testing"
	"time"
)

// The board entry reads back as written, beside other entries of the
// header, and WithoutBoardTiming keeps only those others.
func TestBoardTimingRoundTrips(t *testing.T) {
	d := 1234567 * time.Nanosecond
	entry := FormatBoardTiming(d, "esp32")
	if entry != `board;dur=1.234567;desc="esp32"` {
		t.Fatalf("FormatBoardTiming = %s", entry)
	}
	values := []string{`db;dur=53, app;dur=47.2`, entry + `, cache;desc="hit"`}
	got, board, ok := ParseBoardTiming(values)
	if !ok || got != d || board != "esp32" {
		t.Fatalf("ParseBoardTiming = %s %q %v, want %s esp32", got, board, ok, d)
	}
	if _, _, ok := ParseBoardTiming([]string{`db;dur=53`}); ok {
		t.Fatal("found a board entry in a header without one")
	}
	if _, _, ok := ParseBoardTiming([]string{`board;dur=-1`}); ok {
		t.Fatal("a negative board time was read")
	}
	rest := WithoutBoardTiming(values)
	if len(rest) != 2 || rest[0] != values[0] || rest[1] != `cache;desc="hit"` {
		t.Fatalf("WithoutBoardTiming = %q", rest)
	}
}
