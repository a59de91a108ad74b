package apptest

import (
	"strconv"
	"time"
)

// Outcome is how an entry ended.
type Outcome string

// The outcomes, as the report lines start.
const (
	Pass Outcome = "PASS"
	Fail Outcome = "FAIL"
	Skip Outcome = "SKIP" // an earlier entry of its file failed: its captures may be missing
)

// Result is one entry's outcome.
type Result struct {
	File     string // tests/api.hurl
	Line     int    // of the request
	Name     string // GET /echo/hello
	Outcome  Outcome
	Failures []string // each names the assert's line, the expectation and what came
	Answer   string   // the answer, in short, when the entry failed
	Note     string   // why a skipped entry was skipped, when not an earlier failure
	Time     time.Duration
	// BoardTime is how long the board would take for the callback that
	// answered, on Board, from the answer's Server-Timing; 0 when no pod
	// answered (docs/boards.md).
	BoardTime time.Duration
	Board     string
}

// Where is file:line.
func (r Result) Where() string { return r.File + ":" + strconv.Itoa(r.Line) }
