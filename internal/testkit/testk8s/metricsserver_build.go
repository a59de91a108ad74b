package testk8s

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// MetricsServerVersion is the metrics-server built: the one that answers
// `kubectl top` on most clusters.
const MetricsServerVersion = "v0.8.0"

// metricsServerPkg is its command.
const metricsServerPkg = "sigs.k8s.io/metrics-server/cmd/metrics-server"

// coldMetricsServerBudget is how much of the test's deadline a cold build
// of metrics-server may need.
const coldMetricsServerBudget = 25 * time.Minute

// MetricsServer builds, or reuses from the cache directory, metrics-server,
// and returns its path. It shares Binaries' lock and bin folder, with a
// stamp of its own (STAMP.metrics-server), so that building it does not
// make the control plane's binaries stale.
func MetricsServer(t testing.TB) string {
	t.Helper()
	dir, err := cacheDir()
	if err != nil {
		unavailable(t, "%v", err)
	}
	bin := filepath.Join(dir, "bin")
	path := filepath.Join(bin, exe("metrics-server"))
	buildOnce(t, dir, build{
		what: "metrics-server " + MetricsServerVersion, cold: "6 min", budget: coldMetricsServerBudget,
		done: func() bool { return metricsServerBuilt(bin) },
		run:  func() error { return buildMetricsServer(t, dir, bin) },
	})
	return path
}

// metricsServerLDFlags stamps the version as metrics-server's own release
// build does.
func metricsServerLDFlags() string {
	return "-X k8s.io/client-go/pkg/version.gitVersion=" + MetricsServerVersion +
		" -X k8s.io/client-go/pkg/version.buildDate=1970-01-01T00:00:00Z"
}

// metricsServerRecipe names what metrics-server was built from; its stamp
// file holds it.
func metricsServerRecipe() string {
	return fmt.Sprintf("%s@%s, %s/%s, -ldflags=%q\n", metricsServerPkg, MetricsServerVersion, runtime.GOOS, runtime.GOARCH, metricsServerLDFlags())
}

func metricsServerBuilt(bin string) bool {
	b, err := os.ReadFile(filepath.Join(bin, "STAMP.metrics-server"))
	if err != nil || string(b) != metricsServerRecipe() {
		return false
	}
	fi, err := os.Stat(filepath.Join(bin, exe("metrics-server")))
	return err == nil && fi.Mode()&0o111 != 0
}

// buildMetricsServer builds it in a wrapper module of its own: it needs
// older k8s.io/* modules than the control plane, which its go.mod picks.
func buildMetricsServer(t testing.TB, dir, bin string) error {
	stamp := filepath.Join(bin, "STAMP.metrics-server")
	os.Remove(stamp)
	src := filepath.Join(dir, "src", "metrics-server")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module kube32.local/metricsserverbuild\n"), 0o644); err != nil {
		return err
	}
	os.Remove(filepath.Join(src, "go.sum"))
	tmp, err := os.MkdirTemp(bin, ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, exe("metrics-server"))
	steps := []struct {
		what string
		args []string
	}{
		// The version is explicit: without it go get takes the latest.
		{"resolve metrics-server", []string{"get", "-tool", metricsServerPkg + "@" + MetricsServerVersion}},
		{"download its modules", []string{"mod", "download"}},
		{"build metrics-server", []string{"build", "-ldflags=" + metricsServerLDFlags(), "-o", out, metricsServerPkg}},
	}
	for _, s := range steps {
		if _, err := goCmd(t, s.what, src, s.args...); err != nil {
			return err
		}
	}
	if err := os.Rename(out, filepath.Join(bin, exe("metrics-server"))); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(metricsServerRecipe()), 0o644)
}
