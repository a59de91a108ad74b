package cli

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/kube32/kube32/bundler"
)

// printBuildTable writes a build's size table: aligned with readable sizes
// for a person (human), tab-separated exact byte counts for scripts.
func printBuildTable(w io.Writer, res *bundler.BuildResult, human bool) {
	if len(res.Items) == 0 {
		fmt.Fprintln(w, "nothing to build: kube32.yaml lists no pods and no bundles")
		return
	}
	size := func(n int64) string { return strconv.FormatInt(n, 10) }
	tw := w
	if human {
		size = humanBytes
		t := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		defer t.Flush()
		tw = t
		fmt.Fprintln(w)
	}
	cell := func(n int64, has bool) string {
		if !has {
			return "-"
		}
		return size(n)
	}
	// A release build shows, for a person, what it saved: "10.3 MiB →
	// 3.1 MiB" (scripts read both numbers in -o json).
	shrunk := func(before, after int64, has bool) string {
		if !human || !has || before == 0 || before == after {
			return cell(after, has)
		}
		return size(before) + " → " + size(after)
	}
	row := func(cols ...string) {
		for i, c := range cols {
			if i > 0 {
				io.WriteString(tw, "\t")
			}
			io.WriteString(tw, c)
		}
		if human {
			io.WriteString(tw, "\t") // ends the last cell, so that it is aligned too
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
		isPod := it.Kind == bundler.KindPod
		hasBundle := it.Bundle != ""
		cols := []string{it.Kind, it.Name, shrunk(it.CompiledBytes, it.ModuleBytes, isPod), cell(it.InitialMemory, isPod),
			cell(it.Stats.RawBytes, hasBundle), shrunk(it.Stats.PlainGzipBytes, it.Stats.GzipBytes, hasBundle)}
		if withBrotli {
			cols = append(cols, cell(it.Stats.BrotliBytes, hasBundle && it.Brotli))
		}
		row(cols...)
	}
	cols := []string{"total", "", shrunk(t.CompiledBytes, t.ModuleBytes, true), size(t.InitialMemory), size(t.Stats.RawBytes),
		shrunk(t.Stats.PlainGzipBytes, t.Stats.GzipBytes, true)}
	if withBrotli {
		cols = append(cols, size(t.Stats.BrotliBytes))
	}
	row(cols...)
}

// humanBytes writes n as the size table and the fit report write every
// size (bundler.FormatSize).
func humanBytes(n int64) string { return bundler.FormatSize(n) }
