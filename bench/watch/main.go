// Command watch measures the edit-to-new-answer time of `kube32 serve
// --watch` for a C pod, a Go pod and a bundle file, against stopping and
// starting `serve` by hand after the same edit (cancel the serve, start a
// new one on the project, which rebuilds what is stale, wait until it is
// ready and serves the new answer), in one run, and prints the medians and
// their ratio. Both serves run in this process, so the restart pays no
// process start and no keystrokes: the baseline is the fastest restart can be.
//
//	go run ./bench/watch [-n 5] [-v]
//
// Each project is generated from its template (`kube32 new`) into a temporary
// folder; each edit changes a string of the answer or of the page, and the
// time runs from the write of the file until the Ingress serves the new text.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/bench/internal/report"
	"github.com/kube32/kube32/cli"
)

// target is one kind of edit: a file of a project made from a template, a
// string in it that the edit extends with a marker, which the answer of the
// Ingress's / then shows.
type target struct {
	what     string
	template string
	file     string // relative to the project
	anchor   string // the edit writes a marker just before it
}

var targets = []target{
	{"C pod (c-http)", "c-http", "pods/app/main.c", `\n");`},
	{"Go pod (go-http)", "go-http", "pods/app/main.go", `\n%s %s\n"`},
	{"bundle file (static-site)", "static-site", "site/index.html", "</p>"},
}

// answerWait bounds one measurement: a Go build takes seconds, not minutes.
const answerWait = 2 * time.Minute

func main() {
	edits := flag.Int("n", 5, "edits per target and per way; the median is printed")
	verbose := flag.Bool("v", false, "show serve's log on stderr")
	flag.Parse()
	if *edits < 1 {
		fmt.Fprintln(os.Stderr, "bench: -n: want at least 1")
		os.Exit(2)
	}
	log := io.Discard
	if *verbose {
		log = os.Stderr
	}
	if err := run(*edits, log); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(edits int, log io.Writer) error {
	tmp, err := os.MkdirTemp("", "kube32-bench-watch")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{cacheDir: filepath.Join(tmp, "cache"), log: log}
	type result struct {
		what          string
		watch, byHand time.Duration
	}
	var results []result
	for _, t := range targets {
		dir := filepath.Join(tmp, t.template, "app")
		var said strings.Builder
		if code := cli.Run(context.Background(), []string{"new", "app", "--template", t.template, "--dir", dir}, cli.IOStreams{Out: io.Discard, ErrOut: &said}); code != 0 {
			return fmt.Errorf("%s: kube32 new: exit %d: %s", t.what, code, said.String())
		}
		p := project{target: t, dir: dir}
		if err := p.load(); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: %d edits under serve --watch...\n", t.what, edits)
		watch, err := b.underWatch(p, edits)
		if err != nil {
			return fmt.Errorf("%s under serve --watch: %v", t.what, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d edits, restarting serve by hand...\n", t.what, edits)
		byHand, err := b.byHand(p, edits)
		if err != nil {
			return fmt.Errorf("%s restarting serve: %v", t.what, err)
		}
		results = append(results, result{t.what, median(watch), median(byHand)})
		report.Print("watch-"+t.template, float64(median(watch))/1e6, float64(median(byHand))/1e6, "ms")
	}
	fmt.Printf("edit to new answer through the Ingress, median of %d edits\n", edits)
	fmt.Printf("  %-27s %10s %16s %7s\n", "what", "watch", "restart by hand", "ratio")
	for _, r := range results {
		fmt.Printf("  %-27s %10s %16s %6.2fx\n", r.what, r.watch.Round(time.Millisecond), r.byHand.Round(time.Millisecond),
			float64(r.watch)/float64(r.byHand))
	}
	fmt.Println("  (ratio: watch / restart by hand; watch first waits for the files to stay quiet, see cli/internal/watch)")
	return nil
}

// project is a generated project and the original text of the edited file.
type project struct {
	target
	dir      string
	original string
}

func (p *project) load() error {
	data, err := os.ReadFile(filepath.Join(p.dir, p.file))
	if err != nil {
		return err
	}
	p.original = string(data)
	if !strings.Contains(p.original, p.anchor) {
		return fmt.Errorf("%s: template %s: %s no longer holds %q to edit", p.what, p.template, p.file, p.anchor)
	}
	return nil
}

// edit writes the file with marker in the answer.
func (p *project) edit(marker string) error {
	text := strings.Replace(p.original, p.anchor, " "+marker+p.anchor, 1)
	return os.WriteFile(filepath.Join(p.dir, p.file), []byte(text), 0o644)
}

// bench holds what every serve of the run shares.
type bench struct {
	cacheDir string // wazero's compilation cache, warm after the first serve as a user's is
	log      io.Writer
}

// underWatch times edits under one serve --watch.
func (b *bench) underWatch(p project, edits int) ([]time.Duration, error) {
	s, err := b.serve(p.dir, true)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	var times []time.Duration
	for i := 1; i <= edits; i++ {
		marker := fmt.Sprintf("watch-edit-%d", i)
		start := time.Now()
		if err := p.edit(marker); err != nil {
			return nil, err
		}
		if err := waitFor(s.c.IngressURL()+"/", marker); err != nil {
			return nil, err
		}
		times = append(times, time.Since(start))
	}
	return times, s.stop()
}

// byHand times edits each followed by stopping the serve and starting a new
// one, as a user without --watch would.
func (b *bench) byHand(p project, edits int) ([]time.Duration, error) {
	s, err := b.serve(p.dir, false)
	if err != nil {
		return nil, err
	}
	defer func() { s.stop() }()
	var times []time.Duration
	for i := 1; i <= edits; i++ {
		marker := fmt.Sprintf("restart-edit-%d", i)
		start := time.Now()
		if err := p.edit(marker); err != nil {
			return nil, err
		}
		if err := s.stop(); err != nil {
			return nil, err
		}
		next, err := b.serve(p.dir, false)
		if err != nil {
			return nil, err
		}
		s = next
		if err := waitFor(s.c.IngressURL()+"/", marker); err != nil {
			return nil, err
		}
		times = append(times, time.Since(start))
	}
	return times, s.stop()
}

// served is one in-process `kube32 serve`.
type served struct {
	c      *host.Cluster
	cancel context.CancelFunc
	done   <-chan int
	err    error
	ended  bool
}

// serve runs `kube32 serve DIR` on free loopback ports and returns once
// the cluster is ready (what /readyz reports).
func (b *bench) serve(dir string, watch bool) (*served, error) {
	ctx, cancel := context.WithCancel(context.Background())
	args := []string{dir}
	if watch {
		args = append(args, "--watch")
	}
	c, done, err := load.Serve(ctx, cli.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: b.log}, b.cacheDir, args...)
	if err != nil {
		cancel()
		return nil, err
	}
	return &served{c: c, cancel: cancel, done: done}, nil
}

// stop ends the serve and waits until it has let go of its ports.
func (s *served) stop() error {
	if !s.ended {
		s.cancel()
		if code := <-s.done; code != 0 {
			s.err = fmt.Errorf("kube32 serve exited with %d", code)
		}
		s.ended = true
	}
	return s.err
}

// waitFor polls url until its 200 answer holds text.
func waitFor(url, text string) error {
	client := &http.Client{Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(answerWait)
	last := "no answer"
	for time.Now().Before(deadline) {
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), text) {
				return nil
			}
			last = fmt.Sprintf("%s: %.80q", resp.Status, body)
		} else {
			last = err.Error()
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("GET %s: no %q after %s (last: %s)", url, text, answerWait, last)
}

func median(times []time.Duration) time.Duration {
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}
