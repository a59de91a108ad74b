package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/apptest"
	"github.com/kube32/kube32/internal/testserve"
)

// test --watch runs the tests again after each edit: of a test file
// (nothing to rebuild) and of a manifest (swapped into the cluster first).
func TestKube32TestWatchRunsAgainAfterEachEdit(t *testing.T) {
	newApp(t, "c-http", "app")
	ctx, cancel := context.WithCancel(context.Background())
	out := &testserve.Output{}
	runs := make(chan apptest.Count, 8)
	done := make(chan error, 1)
	go func() {
		done <- cli.RunTest(ctx, cli.TestOptions{
			Serve: cli.ServeOptions{IO: cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out}, Dir: "app", Watch: true, CacheDir: testserve.CacheDir},
			Ran:   func(c apptest.Count) { runs <- c },
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunTest ended with %v\n%s", err, out)
		}
	})
	next := func(what string) apptest.Count {
		t.Helper()
		select {
		case c := <-runs:
			return c
		case err := <-done:
			t.Fatalf("RunTest ended (%v) before the run %s:\n%s", err, what, out)
		case <-time.After(3 * time.Minute):
			t.Fatalf("no run %s after 3 minutes:\n%s", what, out)
		}
		return apptest.Count{}
	}
	if c := next("at start"); c.Passed != 1 || c.Failed != 0 {
		t.Fatalf("first run: %s, want the template's test passing:\n%s", c, out)
	}

	test := filepath.Join("app", "tests", "app.hurl")
	newGreeting := "GET {{ingress}}/\nHTTP 200\n[Asserts]\nbody == \"hi there\\n\"\n"
	if err := os.WriteFile(test, []byte(newGreeting), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := next("after the test's edit"); c.Failed != 1 {
		t.Fatalf("after editing the test: %s, want it failing on the old greeting:\n%s", c, out)
	}

	manifest := filepath.Join("app", "app.yaml")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), `value: "hello from app"`, `value: "hi there"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := next("after the manifest's edit"); c.Passed != 1 || c.Failed != 0 {
		t.Fatalf("after editing the greeting: %s, want the test passing:\n%s", c, out)
	}
}
