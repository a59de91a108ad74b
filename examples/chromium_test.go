package examples_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// dumpDOM loads url in headless Chromium (Debian's chromium), lets its
// scripts run, and returns the DOM as they left it. It retries until ready
// holds, up to a few loads, since a browser run can end before a slow fetch
// lands; the test waits for the page, never for a duration.
func dumpDOM(t *testing.T, url string, ready func(dom string) bool) string {
	t.Helper()
	var dom string
	for attempt := 1; attempt <= 3; attempt++ {
		dom = runChromium(t, url)
		if ready(dom) {
			return dom
		}
		t.Logf("load %d of %s: the page is not rendered yet", attempt, url)
	}
	return dom
}

func runChromium(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, _ := testenv.Chromium(ctx, t, "--virtual-time-budget=10000", "--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom %s: %v\n%s", url, err, stderr.String())
	}
	if strings.TrimSpace(stdout.String()) == "" {
		t.Fatalf("chromium --dump-dom %s printed no DOM\n%s", url, stderr.String())
	}
	return stdout.String()
}
