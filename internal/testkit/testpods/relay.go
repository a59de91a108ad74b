package testpods

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kube32/kube32/abi"
)

// Relay posts commands to the relay test pod (internal/testkit/testpods/c/relay.c)
// target, "namespace/name", through the pod server at podURL, with extra
// request headers given as name, value pairs, and returns its answer.
func Relay(podURL, target, commands string, header ...string) (string, error) {
	req, err := http.NewRequest(http.MethodPost, podURL+"/relay", strings.NewReader(commands))
	if err != nil {
		return "", err
	}
	req.Header.Set(abi.HeaderPod, target)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("relay %s: %d %s", target, resp.StatusCode, b)
	}
	return string(b), nil
}

// Contains fails t unless out holds every one of want.
func Contains(t testing.TB, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in:\n%s", w, out)
		}
	}
}

// Lacks fails t if out holds any of unwanted.
func Lacks(t testing.TB, out string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(out, w) {
			t.Errorf("unexpected %q in:\n%s", w, out)
		}
	}
}

// CrossingCalls has relay pod a call b while b calls a, each spinning before
// and after its call so that the two overlap, and fails t unless both end
// with an answer or K32_ERR_TIMEOUT: each pod holds its callback lock while
// it waits for the other's, and only the calls' deadlines break the wait.
// relay sends commands to the pod named from, through whatever path the
// test checks.
func CrossingCalls(t testing.TB, a, b string, relay func(from, commands string) (string, error)) {
	t.Helper()
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, pair := range [][2]string{{a, b}, {b, a}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := relay(pair[0], "spin 50\ncall GET http://"+pair[1]+"/ 300 4096\nspin 50\n")
			if err != nil {
				out = err.Error()
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	for i, out := range outs {
		if !strings.Contains(out, "call rc=200 ") && !strings.Contains(out, CallRC(abi.ErrTimeout)) {
			t.Errorf("the call from %s: want an answer or TIMEOUT:\n%s", []string{a, b}[i], out)
		}
	}
}
