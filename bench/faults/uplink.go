package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// runUplink makes -n calls from the relay pod b on the worker to a plain
// net/http host outside (on loopback) while the control plane's uplink is
// up, down and up again (docs/nodes.md, "The uplink"), and reports the
// share that succeed, their median latency and the call results.
func runUplink(s *server) []row {
	const fault = "uplink (worker -> outside)"
	l, err := net.Listen("tcp4", "127.0.0.80:0")
	if err != nil {
		return failed(fault, err)
	}
	host := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })}
	go host.Serve(l)
	defer host.Close()
	defer s.c.SetUplink(true)

	commands := fmt.Sprintf("call GET http://%s/ 200 64\n", l.Addr())
	var rows []row
	for _, phase := range []struct {
		name string
		up   bool
	}{{"uplink up", true}, {"uplink down", false}, {"uplink up again", true}} {
		s.c.SetUplink(phase.up)
		var took []time.Duration
		codes := map[string]int{}
		for range *uplinkCalls {
			start := time.Now()
			out, err := testpods.Relay(s.c.Workers()[0].PodURL(), "default/b", commands)
			took = append(took, time.Since(start))
			if err != nil {
				return append(rows, failed(fault, err)...)
			}
			codes[callRC(out)]++
		}
		var seen []string
		for rc, k := range codes {
			seen = append(seen, fmt.Sprintf("%s x%d", rc, k))
		}
		slices.Sort(seen)
		rows = append(rows, row{fault, phase.name + ": calls ok, p50, results",
			fmt.Sprintf("%d/%d, %s, %s", codes["rc=200"], *uplinkCalls, p50(took), strings.Join(seen, ", "))})
	}
	return rows
}

// callRC is the "rc=..." of the relay pod's answer, with the K32_ERR_*
// name of an error code.
func callRC(out string) string {
	_, rest, ok := strings.Cut(out, "call rc=")
	if !ok {
		return "no call"
	}
	rc, _, _ := strings.Cut(rest, " ")
	if n, err := strconv.Atoi(rc); err == nil && n < 0 {
		return fmt.Sprintf("rc=%d %s", n, abi.Errno(n).Error())
	}
	return "rc=" + rc
}
