// Package testenv holds what tests share about their environment: finding
// the tools they need (a missing tool skips the test on a developer's
// machine but fails it in CI, where CI=true), waiting for a state to come
// about, laying out files, and the fixture cache that builds each test
// module once per `go test ./...` run (cache.go; KUBE32_TEST_CACHE=off turns
// it off).
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// CI reports whether the tests run in CI, where no test may skip for a
// missing tool.
func CI() bool { return os.Getenv("CI") == "true" }

// Tool returns the path of the program name, or skips the test (fails it
// in CI) when it is not installed.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if CI() {
			t.Fatalf("%s is required (CI=true): %v", name, err)
		}
		t.Skipf("%s not installed; skipping", name)
	}
	return p
}

// Tools is Tool for each of names, for a test that needs them all.
func Tools(t testing.TB, names ...string) {
	t.Helper()
	for _, name := range names {
		Tool(t, name)
	}
}

// Unavailable skips t because what (a tool, a package, a control plane) is
// missing, or fails it in CI, where what is required; format and args say
// why.
func Unavailable(t testing.TB, what, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		t.Fatalf("%s required (CI=true): %s", what, msg)
	}
	t.Skipf("%s unavailable; skipping: %s", what, msg)
}
