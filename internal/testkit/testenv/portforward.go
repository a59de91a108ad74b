package testenv

import (
	"bufio"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

var forwardingFrom = regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) ->`)

// PortForward starts cmd, a `kubectl port-forward` to a local port of
// kubectl's choice, and returns the address kubectl printed and kubectl's
// stderr. kubectl is killed at the end of the test.
func PortForward(t testing.TB, cmd *exec.Cmd) (string, *Buffer) {
	t.Helper()
	what := strings.Join(cmd.Args, " ")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			if m := forwardingFrom.FindStringSubmatch(s.Text()); m != nil {
				select {
				case found <- "127.0.0.1:" + m[1]:
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			t.Fatalf("%s ended without forwarding: %s", what, stderr)
		}
		return addr, stderr
	case <-time.After(time.Minute): // a bound, not an expectation
		t.Fatalf("%s printed no 'Forwarding from': %s", what, stderr)
	}
	return "", nil
}
