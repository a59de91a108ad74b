package apptest

import (
	"fmt"
	"io"

	"github.com/kube32/kube32/internal/termtext"
)

// WriteResult writes one result: PASS/FAIL/SKIP file:line METHOD URL, and
// under a failure each failed expectation and the answer. A failure may
// quote what a server answered, so each line is made safe by termtext.Line,
// the rule of pod logs.
func WriteResult(w io.Writer, r Result) {
	fmt.Fprintf(w, "%s %s %s\n", r.Outcome, r.Where(), termtext.Line(r.Name))
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
