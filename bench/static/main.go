// Command static measures requests per second for one precompressed file
// (a ~50 KiB .js with its .gz) served by `kube32 serve`'s Ingress
// StaticBundle backend and by nginx with gzip_static on, loaded in one run by
// the same load generator (wrk -t2 when it is installed, else the benches'
// own Go client; Accept-Encoding: gzip, keep-alive, c connections). Rounds
// alternate the two servers; the program prints one row: kube32's median
// rate, nginx's and the median of the rounds' ratios, and beside them the
// CPU time each server spent per request (from /proc), which other load on
// the machine moves less than the rates. Each round goes to stderr.
// Everything runs on 127.0.0.1.
//
//	go run ./bench/static [-d 4s] [-c 32] [-rounds 3] [-wrk /usr/bin/wrk] [-nginx /usr/sbin/nginx] [-cpuprofile FILE]
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
	duration := flag.Duration("d", 4*time.Second, "how long to load each server in each round")
	rounds := flag.Int("rounds", 3, "rounds, each loading both servers in turn; the median ratio is reported")
	concurrency := flag.Int("c", 32, "concurrent connections")
	nginxPath := flag.String("nginx", "/usr/sbin/nginx", "the nginx binary")
	wrkPath := flag.String("wrk", "/usr/bin/wrk", `the wrk binary; when it is not there (or is ""), the benches' own Go client loads both servers`)
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the kube32 run to this file")
	flag.Parse()
	profilePath = *cpuProfile
	if *rounds < 1 {
		*rounds = 1
	}
	if _, err := os.Stat(*wrkPath); *wrkPath == "" || err != nil {
		*wrkPath = ""
	}
	if err := run(*duration, *concurrency, *rounds, *nginxPath, *wrkPath); err != nil {
		fmt.Fprintln(os.Stderr, "bench/static:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, concurrency, rounds int, nginxPath, wrkPath string) error {
	if _, err := os.Stat(nginxPath); err != nil {
		return fmt.Errorf("nginx: %w (install Debian's nginx or give -nginx)", err)
	}
	tmp, err := os.MkdirTemp("", "kube32-bench-static")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	proj := filepath.Join(tmp, bundleName)
	if code := cli.Run(context.Background(), []string{"new", bundleName, "--template", "static-site", "--dir", proj}, quiet()); code != 0 {
		return fmt.Errorf("kube32 new: exit %d", code)
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
	c, _, err := load.Serve(ctx, quiet(), filepath.Join(tmp, "cache"), proj)
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

	targets := []struct {
		name, url string
		pid       int // whose CPU time a request costs
	}{
		{"kube32 serve (Ingress -> StaticBundle)", c.IngressURL() + "/" + fileName, os.Getpid()},
		{"nginx (gzip_static on)", ng.url + "/" + fileName, ng.cmd.Process.Pid},
	}
	for _, t := range targets {
		if err := check(t.url, gz); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	measure := func(url string, d time.Duration) (load.Result, error) {
		if wrkPath != "" {
			return wrkLoad(wrkPath, url, d, concurrency)
		}
		return loadGet(url, d, concurrency), nil
	}
	generator := "the Go client of bench/internal/load"
	if wrkPath != "" {
		generator = "wrk -t2"
	}
	for _, t := range targets {
		if _, err := measure(t.url, time.Second); err != nil { // warm up: connections, caches
			return err
		}
	}
	// Rounds alternate the servers, so that a change in the machine's other
	// load hits both; the medians of the rounds are the figures.
	var kube32Rates, nginxRates, ratios, kube32CPU, nginxCPU []float64
	var errors int64
	for round := 1; round <= rounds; round++ {
		var rates [2]float64
		for i, t := range targets {
			stop := startProfile(i == 0 && round == 1)
			cpu0 := cpuTime(t.pid)
			res, err := measure(t.url, duration)
			cpu := cpuTime(t.pid) - cpu0
			stop()
			if err != nil {
				return err
			}
			rates[i], errors = res.Rate, errors+res.Errors
			perRequest := cpu.Seconds() * 1e6 / (res.Rate * duration.Seconds())
			if i == 0 {
				kube32CPU = append(kube32CPU, perRequest)
			} else {
				nginxCPU = append(nginxCPU, perRequest)
			}
		}
		kube32Rates, nginxRates = append(kube32Rates, rates[0]), append(nginxRates, rates[1])
		ratios = append(ratios, rates[0]/rates[1])
		fmt.Fprintf(os.Stderr, "bench/static: round %d: kube32 %.0f req/s, nginx %.0f req/s, ratio %.2f; CPU per request kube32 %.1f µs, nginx %.1f µs\n",
			round, rates[0], rates[1], ratios[len(ratios)-1], kube32CPU[len(kube32CPU)-1], nginxCPU[len(nginxCPU)-1])
	}
	fmt.Printf("StaticBundle .js (%d KiB gz) vs nginx gzip_static: kube32 %.0f req/s, nginx %.0f req/s, ratio %.2f; CPU per request kube32 %.1f µs, nginx %.1f µs (median of %d rounds; %s, %d connections, %s each; %d CPUs; %d errors)\n",
		len(gz)>>10, median(kube32Rates), median(nginxRates), median(ratios), median(kube32CPU), median(nginxCPU), rounds, generator, concurrency, duration, runtime.NumCPU(), errors)
	report.Print("static", median(kube32Rates), median(nginxRates), "req/s")
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
