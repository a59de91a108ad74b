package pod

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestStopLogsStoppedOnce: a stopped pod says so in one line, also when its
// k32_main, interrupted by the stop, returns on its own (K32_ERR_INTR from
// its sleep): that return is the stop, not a container end of its own.
func TestStopLogsStoppedOnce(t *testing.T) {
	p := startPod(t, onePage(t, "main"), func(c *Config) {
		c.Env = []EnvVar{{"SLEEP", "1"}}
		c.RestartPolicy = restartAlways
	})
	testenv.Eventually(t, "k32_main sleeping", func() bool { return logged(p, "k32", "main sleeps") })
	p.Stop()
	var stopped []string
	for _, l := range p.Logs() {
		if strings.Contains(l.Text, "stopped") {
			stopped = append(stopped, l.Text)
		}
	}
	if len(stopped) != 1 || stopped[0] != "[POD] default/probe stopped" {
		t.Errorf("lines about the stop: %q, want one [POD] default/probe stopped", stopped)
	}
}
