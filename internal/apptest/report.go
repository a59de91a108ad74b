package apptest

import (
	"fmt"
	"io"
)

// WriteResult writes one result: PASS/FAIL/SKIP file:line METHOD URL, and
// under a failure each failed expectation and the answer.
func WriteResult(w io.Writer, r Result) {
	fmt.Fprintf(w, "%s %s %s\n", r.Outcome, r.Where(), r.Name)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "    %s\n", f)
	}
	if r.Answer != "" {
		fmt.Fprintf(w, "    answer: %s\n", r.Answer)
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
