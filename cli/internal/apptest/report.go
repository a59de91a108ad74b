package apptest

import (
	"fmt"
	"io"
	"time"

	"github.com/kube32/kube32/internal/termtext"
)

// WriteResult writes one result: PASS/FAIL/SKIP file:line METHOD URL, the
// board time of the answer when a pod gave it, and under a failure each
// failed expectation and the answer. A failure may quote what a server
// answered, so each line is made safe by termtext.Line, the rule of pod
// logs.
func WriteResult(w io.Writer, r Result) {
	board := ""
	if r.Board != "" {
		board = fmt.Sprintf(" (board time %s on %s)", r.BoardTime.Round(time.Microsecond), termtext.Line(r.Board))
	}
	fmt.Fprintf(w, "%s %s %s%s\n", r.Outcome, r.Where(), termtext.Line(r.Name), board)
	if r.Note != "" {
		fmt.Fprintf(w, "    %s\n", termtext.Line(r.Note))
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "    %s\n", termtext.Line(f))
	}
	if r.Answer != "" {
		fmt.Fprintf(w, "    answer: %s\n", termtext.Line(r.Answer))
	}
}

// Count tallies results.
type Count struct{ Passed, Failed, Skipped int }

// Tally counts results by outcome.
func Tally(results []Result) Count {
	var c Count
	for _, r := range results {
		switch r.Outcome {
		case Pass:
			c.Passed++
		case Fail:
			c.Failed++
		default:
			c.Skipped++
		}
	}
	return c
}

func (c Count) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
}
