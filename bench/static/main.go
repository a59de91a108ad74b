// Command static measures requests per second for one precompressed file
// (a ~50 KiB .js with its .gz) served by `kube32 serve`'s Ingress
// StaticBundle backend and by nginx with gzip_static on, loaded in one run by
// the same Go HTTP client (Accept-Encoding: gzip, keep-alive, c concurrent
// clients), and prints both rates and their ratio. Everything runs
// on 127.0.0.1.
//
//	go run ./bench/static [-d 3s] [-c 8] [-rounds 3] [-nginx /usr/sbin/nginx] [-cpuprofile FILE]
//
// kube32 serve runs in this process on a project made with
// `kube32 new --template static-site` plus the file, so serve builds (and
// precompresses) it as `kube32 build` does; nginx runs as a child process
// (one process: daemon off, master_process off) with its root at the
// bundle that build wrote, so both send the same .gz bytes.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/bench/internal/report"
	"github.com/kube32/kube32/cli"
)

// bundleName is the app's name, and so its StaticBundle's.
const bundleName = "bench"

// fileName is the measured file, at the bundle's root.
const fileName = "app.js"

func main() {
	duration := flag.Duration("d", 3*time.Second, "how long to load each server in each round")
	rounds := flag.Int("rounds", 3, "rounds, each loading both servers in turn; the median ratio is reported")
	concurrency := flag.Int("c", 8, "concurrent clients")
	nginxPath := flag.String("nginx", "/usr/sbin/nginx", "the nginx binary")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the kube32 run to this file")
	flag.Parse()
	profilePath = *cpuProfile
	if *rounds < 1 {
		*rounds = 1
	}
	if err := run(*duration, *concurrency, *rounds, *nginxPath); err != nil {
		fmt.Fprintln(os.Stderr, "bench/static:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, concurrency, rounds int, nginxPath string) error {
	if _, err := os.Stat(nginxPath); err != nil {
		return fmt.Errorf("nginx: %w (install Debian's nginx or give -nginx)", err)
	}
	tmp, err := os.MkdirTemp("", "kube32-bench-static")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	proj := filepath.Join(tmp, bundleName)
	if err := cli.RunNew(cli.NewOptions{IO: quiet(), Name: bundleName, Template: "static-site", Dir: proj}); err != nil {
		return fmt.Errorf("kube32 new: %w", err)
	}
	js, err := script(50 << 10)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(proj, "site", fileName), js, 0o644); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := load.Serve(ctx, cli.ServeOptions{IO: quiet(), Dir: proj, CacheDir: filepath.Join(tmp, "cache")})
	if err != nil {
		return err
	}

	// serve built the project: nginx serves the very files it serves.
	root := filepath.Join(proj, "build", "firmware", "images", "web", bundleName)
	gz, err := os.ReadFile(filepath.Join(root, fileName+".gz"))
	if err != nil {
		return fmt.Errorf("the build wrote no .gz for %s: %w", fileName, err)
	}
	ng, err := startNginx(nginxPath, filepath.Join(tmp, "nginx"), root)
	if err != nil {
		return err
	}
	defer ng.stop()

	targets := []struct{ name, url string }{
		{"kube32 serve (Ingress -> StaticBundle)", c.IngressURL() + "/" + fileName},
		{"nginx (gzip_static on)", ng.url + "/" + fileName},
	}
	for _, t := range targets {
		if err := check(t.url, gz); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	for _, t := range targets {
		loadGet(t.url, time.Second, concurrency) // warm up: connections, caches
	}
	fmt.Printf("GET /%s (%d bytes, %d gzip), Accept-Encoding: gzip, %d clients, %s per server and round, %d CPUs\n",
		fileName, len(js), len(gz), concurrency, duration, runtime.NumCPU())
	// Rounds alternate the servers, so that a change in the machine's other
	// load hits both; the median ratio of the rounds is the figure.
	totals := make([]load.Result, len(targets))
	var ratios []float64
	for round := 1; round <= rounds; round++ {
		rates := make([]load.Result, len(targets))
		for i, t := range targets {
			stop := startProfile(i == 0 && round == 1)
			rates[i] = loadGet(t.url, duration, concurrency)
			stop()
			totals[i].Rate += rates[i].Rate / float64(rounds)
			totals[i].Errors += rates[i].Errors
		}
		ratios = append(ratios, rates[0].Rate/rates[1].Rate)
		fmt.Printf("  round %d: kube32 %8.0f req/s, nginx %8.0f req/s, ratio %.2f\n", round, rates[0].Rate, rates[1].Rate, ratios[len(ratios)-1])
	}
	for i, t := range targets {
		fmt.Printf("  %-40s %8.0f req/s  %6.1f MiB/s  (mean; %d errors)\n", t.name+":", totals[i].Rate, totals[i].Rate*float64(len(gz))/(1<<20), totals[i].Errors)
	}
	fmt.Printf("  %-40s %8.2f (median of %d rounds)\n", "ratio kube32/nginx:", median(ratios), rounds)
	report.Print("static", totals[0].Rate, totals[1].Rate, "req/s")
	return nil
}

// check makes sure url answers the .gz bytes with Content-Encoding: gzip.
func check(url string, gz []byte) error {
	got, enc, err := fetch(url)
	if err != nil {
		return err
	}
	if enc != "gzip" || !bytes.Equal(got, gz) {
		return fmt.Errorf("GET %s: Content-Encoding %q, %d bytes; want the %d bytes of the .gz", url, enc, len(got), len(gz))
	}
	return nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func quiet() cli.IOStreams {
	return cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard}
}
