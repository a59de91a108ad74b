// Command compress compares, per file and in total, the sizes of the
// precompressed variants `kube32 build` writes (our gzip, from
// compress/gzip at BestCompression, and brotli at quality 11) with `gzip -9`
// and `zopfli` (printed "n/a" when the tool is missing).
//
//	go run ./bench/compress [DIR...]
//
// Without arguments it measures the static files of the repository
// (examples/*/site and templates/) and a generated 200 KiB HTML page mixing
// CSS, JavaScript and prose taken from the Go distribution.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/kube32/kube32/bundler"

	"github.com/kube32/kube32/bench/internal/report"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/compress [DIR...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bench/compress:", err)
		os.Exit(1)
	}
}

// input is one file to measure.
type input struct {
	name string
	data []byte
}

func run(dirs []string) error {
	var inputs []input
	if len(dirs) == 0 {
		var err error
		if inputs, err = defaultInputs(); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		in, err := readDir(d)
		if err != nil {
			return err
		}
		inputs = append(inputs, in...)
	}
	if len(inputs) == 0 {
		return errors.New("no files to compress")
	}
	tmp, err := os.MkdirTemp("", "kube32-bench-compress")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FILE\tRAW\tOUR GZIP\tGZIP -9\tZOPFLI\tBROTLI\t")
	var total sizes
	for _, in := range inputs {
		s, err := measure(tmp, in)
		if err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%d\t\n", in.name, s.raw, s.ours, cell(s.gzip9), cell(s.zopfli), s.brotli)
		total = total.add(s)
	}
	fmt.Fprintf(tw, "total (%d files)\t%d\t%d\t%s\t%s\t%d\t\n", len(inputs), total.raw, total.ours, cell(total.gzip9), cell(total.zopfli), total.brotli)
	tw.Flush()
	fmt.Println()
	fmt.Printf("of raw:        our gzip %s, gzip -9 %s, zopfli %s, brotli %s\n",
		pct(total.ours, total.raw), pct(total.gzip9, total.raw), pct(total.zopfli, total.raw), pct(total.brotli, total.raw))
	fmt.Printf("of our gzip:   gzip -9 %s, zopfli %s, brotli %s\n",
		pct(total.gzip9, total.ours), pct(total.zopfli, total.ours), pct(total.brotli, total.ours))
	if total.gzip9 >= 0 {
		report.Print("compress-vs-gzip9", float64(total.ours), float64(total.gzip9), "bytes")
	}
	if total.zopfli >= 0 {
		report.Print("compress-vs-zopfli", float64(total.ours), float64(total.zopfli), "bytes")
	}
	return nil
}

// sizes are the compressed sizes of one file or a sum; -1 means the tool is
// missing.
type sizes struct {
	raw, ours, gzip9, zopfli, brotli int64
}

func (s sizes) add(o sizes) sizes {
	sum := func(a, b int64) int64 {
		if a < 0 || b < 0 {
			return -1
		}
		return a + b
	}
	return sizes{s.raw + o.raw, s.ours + o.ours, sum(s.gzip9, o.gzip9), sum(s.zopfli, o.zopfli), s.brotli + o.brotli}
}

func measure(tmp string, in input) (sizes, error) {
	gz, err := bundler.Gzip(in.data)
	if err != nil {
		return sizes{}, err
	}
	br, err := bundler.Brotli(in.data)
	if err != nil {
		return sizes{}, err
	}
	f := filepath.Join(tmp, "in"+filepath.Ext(in.name))
	if err := os.WriteFile(f, in.data, 0o644); err != nil {
		return sizes{}, err
	}
	gzip9, err := toolSize("gzip", "-9", "-n", "-c", f)
	if err != nil {
		return sizes{}, err
	}
	zopfli, err := toolSize("zopfli", "-c", f)
	if err != nil {
		return sizes{}, err
	}
	return sizes{int64(len(in.data)), int64(len(gz)), gzip9, zopfli, int64(len(br))}, nil
}

// toolSize runs a compressor writing to stdout and returns the output's
// size, or -1 when the tool is not installed.
func toolSize(tool string, args ...string) (int64, error) {
	path, err := exec.LookPath(tool)
	if err != nil {
		return -1, nil
	}
	out, err := exec.Command(path, args...).Output()
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", tool, strings.Join(args, " "), err)
	}
	return int64(len(out)), nil
}

func cell(n int64) string {
	if n < 0 {
		return "n/a"
	}
	return fmt.Sprint(n)
}

func pct(n, of int64) string {
	if n < 0 || of <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// readDir reads the compressible files under dir (precompressed variants
// and already-compressed formats are left out).
func readDir(dir string) ([]input, error) {
	var out []input
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "build" || strings.HasPrefix(d.Name(), ".") && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !bundler.Compressible(p) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, input{filepath.ToSlash(p), data})
		return nil
	})
	sort.Slice(out, func(a, b int) bool { return out[a].name < out[b].name })
	return out, err
}
