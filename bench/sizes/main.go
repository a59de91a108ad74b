// Command sizes prints what `kube32 build` makes for the boards, default
// and `--release` (wasm-opt -Oz, no custom sections, the Go linker's size
// flags, the smallest .gz):
//
//   - per language (C, Rust no_std, Rust std, Go, Go with k32http,
//     AssemblyScript, whose compiler npm installs), the
//     module's bytes and initial linear memory of a pod built from the
//     `kube32 new` templates;
//
//   - per real single-page app (examples/spa, examples/demo), the .gz total
//     of its StaticBundle against `gzip -9` and `zopfli` run directly on the
//     same files. The aim: release bundles no larger than zopfli's.
//
//     go run ./bench/sizes [-keep]
//
// Release builds of Go pods run wasm-opt for a minute or two each; progress
// goes to standard error.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/kube32/kube32/bundler"

	"github.com/kube32/kube32/bench/internal/repo"
	"github.com/kube32/kube32/bench/internal/report"
)

func main() {
	keep := flag.Bool("keep", false, "keep the projects built (their folder is printed)")
	flag.Parse()
	if err := run(*keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(keep bool) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "kube32-bench-sizes")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "projects in", work)
	} else {
		defer os.RemoveAll(work)
	}
	ctx := context.Background()

	var mods []moduleRow
	for _, p := range pods {
		m, err := p.measure(ctx, root, work)
		if err != nil {
			return fmt.Errorf("%s: %w", p.label, err)
		}
		mods = append(mods, m)
	}
	var bundles []bundleRow
	for _, s := range spas {
		b, err := s.measure(ctx, root, work)
		if err != nil {
			return fmt.Errorf("%s: %w", s.label, err)
		}
		bundles = append(bundles, b)
	}

	fmt.Println("pod modules, kube32 build (default) and kube32 build --release")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "LANGUAGE\tMODULE\tINITIAL MEMORY\tRELEASE MODULE\tRELEASE INITIAL MEMORY\tRELEASE/DEFAULT\t")
	for _, m := range mods {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2f\t\n", m.label, bytes(m.debug.module), memory(m.debug.memory),
			bytes(m.release.module), memory(m.release.memory), float64(m.release.module)/float64(m.debug.module))
	}
	tw.Flush()

	fmt.Println()
	fmt.Println("StaticBundle .gz total (what a gzip client downloads), against the tools run on the same files")
	tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "BUNDLE\tFILES\tRAW\tKUBE32\tKUBE32 --release\tGZIP -9\tZOPFLI\tRELEASE/GZIP -9\tRELEASE/ZOPFLI\t")
	for _, b := range bundles {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", b.label, b.files, b.raw, b.debug, b.release,
			count(b.gzip9), count(b.zopfli), ratio(b.release, b.gzip9), ratio(b.release, b.zopfli))
	}
	tw.Flush()
	fmt.Println("(a file is counted as its .gz where kube32 wrote one, else as itself; the tools' sizes likewise take the smaller of the two)")

	for _, m := range mods {
		report.Print("sizes-module-"+m.name, float64(m.release.module), float64(m.debug.module), "bytes")
	}
	for _, b := range bundles {
		if b.zopfli >= 0 {
			report.Print("sizes-"+b.name+"-gz-vs-zopfli", float64(b.release), float64(b.zopfli), "bytes")
		}
	}
	return nil
}

// built is what one build made of a pod.
type built struct{ module, memory int64 }

// progress prints a build's steps on standard error under label.
func progress(label string, release bool) func(bundler.Step) {
	mode := "default"
	if release {
		mode = "release"
	}
	return func(s bundler.Step) {
		if s.State != bundler.StepUpToDate {
			fmt.Fprintf(os.Stderr, "%s (%s): %s\n", label, mode, s)
		}
	}
}

// bytes is n in B, KB or MB (powers of ten, as the build table prints).
func bytes(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// memory is n in KiB or MiB, as linear memory comes in 64 KiB pages.
func memory(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// count is n, or "n/a" for a missing tool (-1).
func count(n int64) string {
	if n < 0 {
		return "n/a"
	}
	return fmt.Sprint(n)
}

// ratio is a/b, or "n/a" when b is missing.
func ratio(a, b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}
