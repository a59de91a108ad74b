package load

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Request is one request a load run repeats.
type Request struct {
	Method, URL string
	Body        []byte
	ContentType string // "" sends none
}

// Generator names the load generator Measure uses: wrk when it is
// installed, else this package's Go client.
func Generator() string {
	if _, err := exec.LookPath("wrk"); err == nil {
		return "wrk -t2"
	}
	return "Go client"
}

// Measure repeats req from concurrency clients for d, with wrk when it is
// installed (two threads), else with Run, so that every target of one
// bench is loaded by the same generator.
func Measure(req Request, d time.Duration, concurrency int) (Result, error) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return measureGo(req, d, concurrency), nil
	}
	script, err := wrkScript(req)
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(filepath.Dir(script))
	threads := min(2, concurrency)
	out, err := exec.Command(wrk, "-t"+strconv.Itoa(threads), "-c"+strconv.Itoa(concurrency),
		"-d"+strconv.Itoa(max(1, int(d.Seconds())))+"s", "-s", script, req.URL).CombinedOutput()
	if err != nil {
		return Result{}, fmt.Errorf("wrk %s: %v\n%s", req.URL, err, out)
	}
	return parseWrk(string(out), d)
}

func measureGo(req Request, d time.Duration, concurrency int) Result {
	client := Client(concurrency)
	defer client.CloseIdleConnections()
	return Run(client, func() (*http.Request, error) {
		r, err := http.NewRequest(req.Method, req.URL, strings.NewReader(string(req.Body)))
		if err == nil && req.ContentType != "" {
			r.Header.Set("Content-Type", req.ContentType)
		}
		return r, err
	}, d, concurrency)
}

// wrkScript writes the Lua script that makes wrk send req.
func wrkScript(req Request) (string, error) {
	dir, err := os.MkdirTemp("", "kube32-wrk")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %q\n", req.Method)
	if len(req.Body) > 0 {
		fmt.Fprintf(&b, "wrk.body = %q\n", req.Body)
	}
	if req.ContentType != "" {
		fmt.Fprintf(&b, "wrk.headers[\"Content-Type\"] = %q\n", req.ContentType)
	}
	path := filepath.Join(dir, "request.lua")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

var (
	wrkRate   = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkNon2xx = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSocket = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// parseWrk reads the rate and the errors from the report of a wrk run of
// d. wrk's rate counts every answer; the non-2xx ones are taken out of it,
// as Run counts only 200s.
func parseWrk(out string, d time.Duration) (Result, error) {
	m := wrkRate.FindStringSubmatch(out)
	if m == nil {
		return Result{}, fmt.Errorf("no Requests/sec in wrk's output:\n%s", out)
	}
	rate, _ := strconv.ParseFloat(m[1], 64)
	var errs int64
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		errs += n
		rate = max(0, rate-float64(n)/d.Seconds())
	}
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			errs += n
		}
	}
	return Result{Rate: rate, Errors: errs}, nil
}
