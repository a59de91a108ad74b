package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/kube32/kube32/bench/internal/load"
)

// wrkLoad loads url with wrk (two threads, concurrency connections,
// Accept-Encoding: gzip) for d. Answers other than 2xx and 3xx and socket
// errors count as errors; the rate counts every completed request, as wrk
// reports it, less those errors.
func wrkLoad(wrk, url string, d time.Duration, concurrency int) (load.Result, error) {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.Command(wrk, "-t2", "-c"+strconv.Itoa(concurrency), "-d"+strconv.Itoa(secs)+"s",
		"-H", "Accept-Encoding: gzip", url)
	out, err := cmd.Output()
	if err != nil {
		return load.Result{}, fmt.Errorf("wrk: %v\n%s", err, out)
	}
	return parseWrk(out)
}

// parseWrk reads the summary of wrk's output: "N requests in Ts",
// "Non-2xx or 3xx responses: N" and "Socket errors: connect N, read N,
// write N, timeout N".
func parseWrk(out []byte) (load.Result, error) {
	var requests, errors int64
	var took time.Duration
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.Contains(line, " requests in "):
			n, rest, _ := strings.Cut(line, " requests in ")
			requests, _ = strconv.ParseInt(n, 10, 64)
			d, _, _ := strings.Cut(rest, ",")
			took, _ = time.ParseDuration(d)
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:"):
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "Non-2xx or 3xx responses:")), 10, 64)
			errors += n
		case strings.HasPrefix(line, "Socket errors:"):
			for part := range strings.SplitSeq(strings.TrimPrefix(line, "Socket errors:"), ",") {
				fields := strings.Fields(part)
				if len(fields) == 2 {
					n, _ := strconv.ParseInt(fields[1], 10, 64)
					errors += n
				}
			}
		}
	}
	if requests == 0 || took <= 0 {
		return load.Result{}, fmt.Errorf("wrk: no summary in its output:\n%s", out)
	}
	return load.Result{Rate: float64(requests-errors) / took.Seconds(), Errors: errors}, nil
}
