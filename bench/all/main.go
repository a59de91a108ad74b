// Command all runs every benchmark under bench/ against its baseline, each
// as `go run ./bench/NAME` in turn, and prints one table of the figures
// they report (bench/internal/report): kube32's, the baseline's, their
// ratio and the aim, under a header naming the date, the machine and the
// Go version.
//
//	go run ./bench/all [-sizes] [-only static,echo]
//
// A program that is not in the repository is skipped; one that fails is
// named at the end and makes the exit status 1. The programs' own output
// goes to standard error as they run.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kube32/kube32/bench/internal/repo"
	"github.com/kube32/kube32/bench/internal/report"
)

// program is a bench program and the flags bench/all runs it with.
type program struct {
	name string
	args []string
	// slow programs run only when asked for by a flag of their name.
	slow bool
}

// programs are the bench programs with kube32-versus-baseline figures, in
// the order they run. bench/faults is not among them: its figures have no
// baseline.
var programs = []program{
	{name: "static"},
	{name: "echo"},
	{name: "calls"},
	{name: "api"},
	{name: "watch"},
	{name: "compress"},
	{name: "scale"},
	{name: "boardtime"},
	{name: "sizes", slow: true},
}

func main() {
	withSizes := flag.Bool("sizes", false, "also run bench/sizes (release builds of Go pods: minutes)")
	only := flag.String("only", "", "comma-separated programs to run, e.g. static,echo (default: all)")
	flag.Parse()
	for _, name := range strings.Split(*only, ",") {
		if name != "" && !slices.ContainsFunc(programs, func(p program) bool { return p.name == name }) {
			fmt.Fprintf(os.Stderr, "bench: -only: no program %q\n", name)
			os.Exit(2)
		}
	}
	var run []program
	for _, p := range programs {
		switch {
		case *only != "":
			if slices.Contains(strings.Split(*only, ","), p.name) {
				run = append(run, p)
			}
		case !p.slow || (p.name == "sizes" && *withSizes):
			run = append(run, p)
		}
	}
	if !runAll(run) {
		os.Exit(1)
	}
}

// runAll runs the programs and prints the table; it reports whether every
// program ran and printed its figures.
func runAll(programs []program) bool {
	root, err := repo.Root()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return false
	}
	start := time.Now()
	var rows []row
	var failures, skipped []string
	for _, p := range programs {
		if _, err := os.Stat(filepath.Join(root, "bench", p.name)); err != nil {
			fmt.Fprintf(os.Stderr, "== bench/%s: not in this repository, skipped\n", p.name)
			skipped = append(skipped, p.name)
			continue
		}
		fmt.Fprintf(os.Stderr, "== go run ./bench/%s %s\n", p.name, strings.Join(p.args, " "))
		lines, err := runProgram(root, p)
		if err == nil && len(lines) == 0 {
			err = fmt.Errorf("no RESULT lines")
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("bench/%s: %v", p.name, err))
		}
		for _, l := range lines {
			rows = append(rows, row{program: p.name, Line: l})
		}
	}
	printHeader(os.Stdout, start)
	printTable(os.Stdout, rows)
	if len(skipped) > 0 {
		fmt.Printf("not in this repository: %s\n", strings.Join(skipped, ", "))
	}
	for _, f := range failures {
		fmt.Printf("failed: %s\n", f)
	}
	return len(failures) == 0
}

// runProgram runs `go run ./bench/NAME` in root, copying its output to
// standard error, and returns the result lines it printed.
func runProgram(root string, p program) ([]report.Line, error) {
	cmd := exec.Command("go", append([]string{"run", "./bench/" + p.name}, p.args...)...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var lines []report.Line
	var bad error
	sc := bufio.NewScanner(io.TeeReader(out, os.Stderr))
	for sc.Scan() {
		l, ok, err := report.Parse(sc.Text())
		switch {
		case err != nil && bad == nil:
			bad = err
		case ok && err == nil:
			lines = append(lines, l)
		}
	}
	if err := cmd.Wait(); err != nil {
		return lines, err
	}
	return lines, bad
}
