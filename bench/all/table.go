package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kube32/kube32/bench/internal/report"
)

// row is a figure of the table and the program that reported it.
type row struct {
	program string
	report.Line
}

// printHeader says when, on what and with which Go the figures were taken,
// and how loaded the machine was: they are only comparable in pairs.
func printHeader(w io.Writer, start time.Time) {
	fmt.Fprintf(w, "kube32 benchmarks, %s, took %s\n", start.Format("2006-01-02 15:04 MST"), time.Since(start).Round(time.Second))
	fmt.Fprintf(w, "machine: %s, %d cores; %s %s/%s", cpuModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(w, "; load average %s", strings.Join(strings.Fields(string(load))[:3], " "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "ratio = kube32 / baseline, both measured in the same run")
	fmt.Fprintln(w)
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if key, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown CPU"
}

// printTable prints one line per figure.
func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROGRAM\tROW\tKUBE32\tBASELINE\tUNIT\tRATIO\tAIM\tMET")
	for _, r := range rows {
		a, hasAim := aimOf(r.Name)
		ratio, met := "-", "-"
		if r.Baseline != 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio())
			if hasAim {
				met = map[bool]string{true: "yes", false: "no"}[a.met(r.Ratio())]
			}
		}
		aimText := "-"
		if hasAim {
			aimText = a.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.program, r.Name, figure(r.Kube32), figure(r.Baseline), r.Unit, ratio, aimText, met)
	}
	tw.Flush()
}

// figure is v with three significant digits at least and no exponent.
func figure(v float64) string {
	if v >= 1000 || v == float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
