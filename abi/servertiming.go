package abi

import (
	"strconv"
	"strings"
	"time"
)

// HeaderServerTiming is the W3C Server-Timing header, in which every
// answer a pod gives under kube32 serve carries the board time of its
// callback, so that a browser's developer tools show it beside the
// network time (docs/boards.md, "Time on the board").
const HeaderServerTiming = "Server-Timing"

// ServerTimingMetric is the name of that entry.
const ServerTimingMetric = "board"

// FormatBoardTiming writes the Server-Timing entry of a callback that
// took d on board: `board;dur=1.234;desc="esp32"`, dur in milliseconds.
func FormatBoardTiming(d time.Duration, board string) string {
	b := make([]byte, 0, 40)
	b = append(b, ServerTimingMetric+";dur="...)
	b = strconv.AppendFloat(b, float64(d)/float64(time.Millisecond), 'f', -1, 64)
	b = append(b, ";desc="...)
	return string(strconv.AppendQuote(b, board))
}

// ParseBoardTiming finds the board entry in the values of Server-Timing
// headers and returns its duration and board; ok is false without one.
func ParseBoardTiming(values []string) (d time.Duration, board string, ok bool) {
	for _, v := range values {
		for _, entry := range strings.Split(v, ",") {
			params := strings.Split(entry, ";")
			if strings.TrimSpace(params[0]) != ServerTimingMetric {
				continue
			}
			for _, p := range params[1:] {
				name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
				switch strings.ToLower(name) {
				case "dur":
					ms, err := strconv.ParseFloat(value, 64)
					if err != nil || ms < 0 {
						return 0, "", false
					}
					d, ok = time.Duration(ms*float64(time.Millisecond)), true
				case "desc":
					if uq, err := strconv.Unquote(value); err == nil {
						value = uq
					}
					board = value
				}
			}
			return d, board, ok
		}
	}
	return 0, "", false
}

// WithoutBoardTiming returns the values of Server-Timing headers without
// the board entry, for an answer that goes on to a pod: a board adds none.
func WithoutBoardTiming(values []string) []string {
	var out []string
	for _, v := range values {
		var kept []string
		for _, entry := range strings.Split(v, ",") {
			entry = strings.TrimSpace(entry)
			if name, _, _ := strings.Cut(entry, ";"); strings.TrimSpace(name) != ServerTimingMetric {
				kept = append(kept, entry)
			}
		}
		if len(kept) > 0 {
			out = append(out, strings.Join(kept, ", "))
		}
	}
	return out
}
