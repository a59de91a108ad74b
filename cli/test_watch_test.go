package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/apptest"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// test --watch runs the tests again after each edit: of a test file
// (nothing to rebuild) and of a manifest (swapped into the cluster first).
func TestKube32TestWatchRunsAgainAfterEachEdit(t *testing.T) {
	out, next := watchTemplateTests(t, "c-http")
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

// The template's own test holds under test --watch after an edit of the
// pod's source: the rebuilt module swapped in restarts the pod, as a
// kubelet counts an image change, and the test asserts that the pod did
// not crash (pod "app" crashed == false), which the swap is not.
func TestKube32TestWatchTemplateTestPassesAfterASourceEdit(t *testing.T) {
	out, next := watchTemplateTests(t, "c-http")
	if c := next("at start"); c.Passed != 1 || c.Failed != 0 {
		t.Fatalf("first run: %s, want the template's test passing:\n%s", c, out)
	}

	// Another module with the same answer: its error message is longer.
	source := filepath.Join("app", "pods", "app", "main.c")
	b, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `GREETING is not set\n`, `GREETING is not set in the pod's env\n`, 1)
	if edited == string(b) {
		t.Fatal("the template's main.c lost its error message: this test's edit no longer applies")
	}
	for i := 1; i <= 2; i++ {
		if err := os.WriteFile(source, []byte(strings.Replace(edited, "pod's env", fmt.Sprintf("pod's env (%d)", i), 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		c := next(fmt.Sprintf("after edit %d", i))
		if c.Passed != 1 || c.Failed != 0 {
			t.Fatalf("after edit %d: %s, want the template's test passing:\n%s", i, c, out)
		}
		if strings.Count(out.String(), "pod app rebuilt") != i {
			t.Fatalf("after edit %d no swap of the pod:\n%s", i, out)
		}
	}
}

// watchTemplateTests runs kube32 test --watch on a new app "app" of tmpl
// until the test ends, and returns its output and a function that waits
// for its next run's summary line (what names the run in a failure).
func watchTemplateTests(t *testing.T, tmpl string) (out *testserve.Output, next func(what string) apptest.Count) {
	t.Helper()
	newApp(t, tmpl, "app")
	ctx, cancel := context.WithCancel(context.Background())
	out = &testserve.Output{}
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"test", "app", "--watch"}, cli.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out})
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("kube32 test --watch exited with %d\n%s", code, out)
		}
	})
	summary := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped \(\d+ files?, `)
	runs := 0
	next = func(what string) apptest.Count {
		t.Helper()
		runs++
		deadline := time.After(3 * time.Minute)
		for {
			if lines := summary.FindAllStringSubmatch(out.String(), -1); len(lines) >= runs {
				n := func(i int) int { v, _ := strconv.Atoi(lines[runs-1][i]); return v }
				return apptest.Count{Passed: n(1), Failed: n(2), Skipped: n(3)}
			}
			select {
			case code := <-done:
				t.Fatalf("kube32 test --watch exited with %d before the run %s:\n%s", code, what, out)
			case <-deadline:
				t.Fatalf("no run %s after 3 minutes:\n%s", what, out)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return out, next
}

// Issue 32: test --watch (serve --watch's loop) rebuilds an AssemblyScript
// pod when its .ts source is saved, swaps the module in, and the template's
// tests pass again.
func TestKube32TestWatchRebuildsAnAssemblyScriptPodOnATsEdit(t *testing.T) {
	out, next := watchTemplateTests(t, "as-http")
	if c := next("at start"); c.Passed == 0 || c.Failed != 0 {
		t.Fatalf("first run: %s, want the template's tests passing:\n%s", c, out)
	}
	source := filepath.Join("app", "pods", "app", "main.ts")
	b, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `GREETING is not set\n`, `GREETING is not set in the pod's env\n`, 1)
	if edited == string(b) {
		t.Fatal("the template's main.ts lost its error message: this test's edit no longer applies")
	}
	if err := os.WriteFile(source, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	// A run may come between the first one and the edit's, settling the
	// events of the first build's own writes with nothing to swap: the
	// edit's run is the one after the swap (next fails if none comes).
	c := next("after the edit")
	for {
		o := out.String()
		if swap := strings.Index(o, "pod app rebuilt"); swap >= 0 && swap < strings.LastIndex(o, " passed, ") {
			break
		}
		c = next("after the .ts edit, with a swap of the pod")
	}
	if c.Passed == 0 || c.Failed != 0 {
		t.Fatalf("after the edit: %s, want the template's tests passing:\n%s", c, out)
	}
}
