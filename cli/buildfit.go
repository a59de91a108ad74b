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
// verdict ("ok", "over by …"). Without a board the verdicts are "-". As the
// size table, it is aligned with readable sizes for a person (human) and
// tab-separated with exact byte counts for scripts.
func printBuildFit(w io.Writer, f bundler.Fit, human bool) {
	size := func(n int64) string { return strconv.FormatInt(n, 10) }
	var tw io.Writer = w
	if human {
		size = humanBytes
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
	verdict := func(over int64) string {
		switch {
		case f.Board == "":
			return "-"
		case over > 0:
			return "over by " + size(over)
		}
		return "ok"
	}

	// Lines without a tab end tabwriter's column blocks, so the title and
	// the blank line between the two tables keep their columns apart.
	if f.Board == "" {
		fmt.Fprint(tw, "\nfit: no board, figures only (name one with board: in kube32.yaml or --board)\n")
	} else {
		fmt.Fprintf(tw, "\nfit for board %s:\n", f.Board)
	}
	row("POD", "LANG", "STORAGE", "MODULE", "INIT-MEM", "MAX-MEM", "LIMIT", "STACK", "CAPABILITIES", "FIT")
	for _, p := range f.Pods {
		caps := strings.Join(p.Capabilities, ",")
		if caps == "" {
			caps = "-"
		}
		row(p.Name, p.Language, p.Storage, size(p.ModuleBytes), size(p.InitialMemory), orNone(p.MaxMemory),
			orNone(p.MemoryLimit), orNone(p.StackBytes), caps, verdict(p.OverBytes))
	}
	fmt.Fprintln(tw)
	row("BUDGET", "USED", "OF", "FIT")
	for _, b := range f.Budgets {
		used := size(b.Used)
		if b.FirmwareBase > 0 {
			used += " (firmware ~" + size(b.FirmwareBase) + ")"
		}
		name := b.Name
		if b.Node != "" {
			name += " on " + b.Node // one row per node, each one board
		}
		row(name, used, orNone(b.Budget), verdict(b.OverBytes))
	}
}
