package testpods

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Relay posts commands to the relay test pod (internal/testpods/c/relay.c)
// target, "namespace/name", through the pod server at podURL, with extra
// request headers given as name, value pairs, and returns its answer.
func Relay(podURL, target, commands string, header ...string) (string, error) {
	req, err := http.NewRequest(http.MethodPost, podURL+"/relay", strings.NewReader(commands))
	if err != nil {
		return "", err
	}
	req.Header.Set("X-Kube32-Pod", target)
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
