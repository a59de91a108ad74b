package build

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
)

// printTable writes the size table: aligned with readable sizes on a
// terminal, tab-separated exact byte counts when piped (for scripts).
func printTable(w io.Writer, res *Result) {
	if len(res.Items) == 0 {
		fmt.Fprintln(w, "nothing to build: kube32.yaml lists no pods and no bundles")
		return
	}
	size := strconv.FormatInt
	human := isTerminal(w)
	if human {
		size = func(n int64, _ int) string { return humanBytes(n) }
	}
	cell := func(n int64, has bool) string {
		if !has {
			return "-"
		}
		return size(n, 10)
	}
	tw := io.Writer(w)
	var flush func() error
	if human {
		t := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		tw, flush = t, t.Flush
		fmt.Fprintln(w)
	}
	row := func(cols ...string) {
		for i, c := range cols {
			if i > 0 {
				io.WriteString(tw, "\t")
			}
			io.WriteString(tw, c)
		}
		if human {
			io.WriteString(tw, "\t")
		}
		io.WriteString(tw, "\n")
	}
	// The BROTLI column is there only when a bundle opts in to .br, so
	// that the table of a project without them stays as it was.
	t := res.Total()
	withBrotli := t.Brotli
	header := []string{"KIND", "NAME", "MODULE", "INIT-MEM", "BUNDLE", "GZIP"}
	if withBrotli {
		header = append(header, "BROTLI")
	}
	row(header...)
	for _, it := range res.Items {
		isPod := it.Kind == KindPod
		hasBundle := it.Bundle != ""
		cols := []string{it.Kind, it.Name, cell(it.ModuleBytes, isPod), cell(it.InitialMemory, isPod),
			cell(it.Stats.RawBytes, hasBundle), cell(it.Stats.GzipBytes, hasBundle)}
		if withBrotli {
			cols = append(cols, cell(it.Stats.BrotliBytes, hasBundle && it.Brotli))
		}
		row(cols...)
	}
	cols := []string{"total", "", size(t.ModuleBytes, 10), size(t.InitialMemory, 10), size(t.Stats.RawBytes, 10), size(t.Stats.GzipBytes, 10)}
	if withBrotli {
		cols = append(cols, size(t.Stats.BrotliBytes, 10))
	}
	row(cols...)
	if flush != nil {
		flush()
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// humanBytes writes n in B, KiB or MiB, as Kubernetes quantities read.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
