package testenv

import (
	"context"
	"os/exec"
	"testing"
)

// Chromium returns a headless Chromium command (the test is skipped, or
// failed in CI, without one) with a fresh profile, whose folder is profile,
// and everything that could reach beyond loopback off: no proxy, no QUIC,
// no background, update or sync traffic. args follow those flags. ctx ends
// it. It runs in a process group of its own, which is killed and waited for
// when the test ends: Chromium's zygote, renderers and crash handler outlive
// a killed browser process and would otherwise still write into the profile
// while the test's temporary folders are removed.
func Chromium(ctx context.Context, t testing.TB, args ...string) (cmd *exec.Cmd, profile string) {
	t.Helper()
	chromium := Tool(t, "chromium")
	profile, home := t.TempDir(), t.TempDir()
	cmd = exec.CommandContext(ctx, chromium, append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-quic", "--no-proxy-server", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--user-data-dir=" + profile,
	}, args...)...)
	cmd.Env = append(cmd.Environ(), "HOME="+home)
	ownGroup(cmd)
	// Registered after the temporary folders, so it runs before their
	// removal.
	t.Cleanup(func() {
		if cmd.Process == nil {
			return
		}
		killGroup(cmd)
		cmd.Wait()
		waitGroupGone(cmd)
	})
	return cmd, profile
}
