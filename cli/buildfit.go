package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kube32/kube32/bundler"
)

// printBuildFit writes the fit report that follows the size table: a row
// per pod, then the totals against the board's budgets, each with its
// verdict ("ok", "over by …"). Without a board the verdicts are "-". Its
// sizes are written as the problems of the report write them, KiB or MiB
// (bundler.FormatSize), on a terminal and piped alike; aligned for a
// person (human), tab-separated for scripts, which have exact bytes in
// -o json.
func printBuildFit(w io.Writer, f bundler.Fit, human bool) {
	size := bundler.FormatSize
	var tw io.Writer = w
	if human {
		t := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		defer t.Flush()
		tw = t
	}
	row := func(cols ...string) {
		io.WriteString(tw, strings.Join(cols, "\t"))
		if human {
			io.WriteString(tw, "\t")
		}
		io.WriteString(tw, "\n")
	}
	orNone := func(n int64) string {
		if n == 0 {
			return "-"
		}
		return size(n)
	}
	verdict := func(overs ...string) string {
		var over []string
		for _, o := range overs {
			if o != "" {
				over = append(over, o)
			}
		}
		switch {
		case f.Board == "":
			return "-"
		case len(over) > 0:
			return "over by " + strings.Join(over, " and ")
		}
		return "ok"
	}
	overBytes := func(n int64) string {
		if n == 0 {
			return ""
		}
		return size(n)
	}

	// Lines without a tab end tabwriter's column blocks, so the title and
	// the blank line between the two tables keep their columns apart.
	if f.Board == "" {
		fmt.Fprint(tw, "\nfit: no board, figures only (name one with board: in kube32.yaml or --board)\n")
	} else {
		fmt.Fprintf(tw, "\nfit for board %s:\n", f.Board)
	}
	row("POD", "LANG", "STORAGE", "MODULE", "INIT-MEM", "MAX-MEM", "LIMIT", "STACK", "CAPABILITIES", "PODS", "FIT")
	for _, p := range f.Pods {
		caps := strings.Join(p.Capabilities, ",")
		if caps == "" {
			caps = "-"
		}
		row(p.Name, p.Language, p.Storage, size(p.ModuleBytes), size(p.InitialMemory), orNone(p.MaxMemory),
			orNone(p.MemoryLimit), orNone(p.StackBytes), caps, countOrNone(int64(len(p.RunBy))), verdict(overBytes(p.OverBytes)))
	}
	fmt.Fprintln(tw)
	row("BUDGET", "USED", "OF", "FIT", "PODS")
	for _, b := range f.Budgets {
		used, of, pods := size(b.Used), orNone(b.Budget), "-"
		var overPods string
		switch {
		case b.Name == bundler.BudgetPodMemory:
			used += ", " + podCount(int64(len(b.Pods)))
			if b.MaxPods > 0 {
				of += ", " + podCount(b.MaxPods)
			}
			if b.OverPods > 0 {
				overPods = podCount(b.OverPods)
			}
			if len(b.Pods) > 0 {
				pods = strings.Join(b.Pods, ", ")
			}
		case b.FirmwareBase > 0:
			used += " (firmware ~" + size(b.FirmwareBase) + ")"
		}
		name := b.Name
		if b.Node != "" {
			name += " on " + b.Node // one row per node, each one board
		}
		row(name, used, of, verdict(overBytes(b.OverBytes), overPods), pods)
	}
}

// podCount writes a number of Pods: "1 Pod", "3 Pods".
func podCount(n int64) string {
	if n == 1 {
		return "1 Pod"
	}
	return strconv.FormatInt(n, 10) + " Pods"
}

// countOrNone writes n, or "-" for none.
func countOrNone(n int64) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}
