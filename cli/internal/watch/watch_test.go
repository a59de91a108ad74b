package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kube32/kube32/bundler"

	"github.com/kube32/kube32/cli/internal/watch"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

var project = map[string]string{
	"kube32.yaml": "name: quiet\nmanifests: [app.yaml]\npods:\n  - name: quiet\n    language: c\n    source: pods/quiet\n",
	"pods/quiet/main.c": `#include "k32.h"
K32_EXPORT(k32_handle) int32_t k32_handle(void) { k32_write_str("v1"); return 0; }
`,
	"app.yaml": `apiVersion: v1
kind: Pod
metadata: {name: quiet}
spec:
  containers: [{name: quiet, image: wasm://embedded/quiet, resources: {limits: {memory: 64Ki}}}]
`,
}

// seen records what the watcher saw.
type seen struct {
	mu      sync.Mutex
	ignored map[string]bool
	rebuild []string
}

func (s *seen) add(p string, rebuild bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rebuild {
		s.rebuild = append(s.rebuild, p)
	} else {
		s.ignored[p] = true
	}
}

func (s *seen) wasIgnored(p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ignored[p]
}

func (s *seen) rebuilds() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rebuild...)
}

// The watcher's own outputs (build/ and its caches, the editor files a
// build writes) and editors' temporary files start no rebuild; an edit of a source does. Events reach the
// watcher in order, so once a later editor file has been seen, every
// change made before it has been decided on.
func TestOutputsAndEditorFilesStartNoRebuild(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, project)
	log := &testserve.Output{}
	saw := &seen{ignored: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := watch.New(watch.Options{Dir: dir, Log: log, Seen: saw.add})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := testserve.Serve(t, dir)                                // builds the project
	served, err := bundler.Build(ctx, dir, bundler.BuildOptions{}) // up to date: what c serves
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx, c, served) }()
	t.Cleanup(func() { cancel(); <-done })
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// settle writes an editor file and waits until the watcher has seen it.
	marker := 0
	settle := func() {
		t.Helper()
		marker++
		name := "pods/quiet/.main.c.swp" + strings.Repeat("x", marker%2)
		if marker%2 == 0 {
			name = "pods/quiet/4913"
		}
		write(name, "x")
		path := filepath.Join(dir, name)
		testenv.Eventually(t, "the watcher seeing "+name, func() bool { return saw.wasIgnored(path) })
	}

	for _, name := range []string{"build/touched", "build/.cache/touched", "pods/quiet/main.c~", "pods/quiet/#main.c#", "compile_commands.json", "Cargo.lock", "pods/quiet/Cargo.toml"} {
		write(name, "x")
	}
	// Emacs's lock file: a symbolic link to nowhere.
	if err := os.Symlink("user@host.1234:1", filepath.Join(dir, "pods/quiet/.#main.c")); err != nil {
		t.Fatal(err)
	}
	settle()
	if r := saw.rebuilds(); len(r) > 0 || strings.Contains(log.String(), "watch:") {
		t.Fatalf("build/ or editor files started a rebuild: %v\n%s", r, log)
	}

	write("pods/quiet/main.c", strings.Replace(project["pods/quiet/main.c"], "v1", "v2", 1))
	testenv.Eventually(t, "the swap of the edited pod", func() bool { return strings.Contains(log.String(), "pod quiet rebuilt") })
	settle() // after the build wrote build/
	for _, p := range saw.rebuilds() {
		if p != filepath.Join(dir, "pods/quiet/main.c") {
			t.Errorf("%s started a rebuild", p)
		}
	}
	if n := strings.Count(log.String(), "watch:"); n != 1 {
		t.Errorf("one edit gave %d watch lines, want 1:\n%s", n, log)
	}
}

// A broken build is said once, and its fix too, with "build ok again",
// even when the fix is the edit undone, which changes nothing served.
func TestFixedBuildSaysSo(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, project)
	log := &testserve.Output{}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := watch.New(watch.Options{Dir: dir, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := testserve.Serve(t, dir)
	served, err := bundler.Build(ctx, dir, bundler.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx, c, served) }()
	t.Cleanup(func() { cancel(); <-done })
	source := filepath.Join(dir, "pods/quiet/main.c")
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(source, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	write(project["pods/quiet/main.c"] + "this is not C;\n")
	testenv.Eventually(t, "the build's failure", func() bool { return strings.Contains(log.String(), "watch: build failed") })
	if strings.Contains(log.String(), "build ok again") {
		t.Fatalf("a failed build said it is ok again:\n%s", log)
	}
	write(project["pods/quiet/main.c"])
	testenv.Eventually(t, "the fix said", func() bool { return strings.Contains(log.String(), "watch: build ok again\n") })
	if strings.Contains(log.String(), "rebuilt") {
		t.Errorf("the undone edit swapped something in:\n%s", log)
	}

	// Fixed and changed: the fix's line, then the swap's.
	write(project["pods/quiet/main.c"] + "this is not C;\n")
	testenv.Eventually(t, "the second failure", func() bool { return strings.Count(log.String(), "watch: build failed") == 2 })
	write(strings.Replace(project["pods/quiet/main.c"], "v1", "v2", 1))
	testenv.Eventually(t, "the swap", func() bool { return strings.Contains(log.String(), "pod quiet rebuilt") })
	lines := log.String()
	if n := strings.Count(lines, "watch: build ok again\n"); n != 2 {
		t.Errorf("%d lines say the build is ok again, want 2:\n%s", n, lines)
	}
	if fixed, swapped := strings.LastIndex(lines, "build ok again"), strings.Index(lines, "pod quiet rebuilt"); fixed > swapped {
		t.Errorf("the swap's line came before the fix's:\n%s", lines)
	}
	// A good build after a good one has no fix to say.
	write(strings.Replace(project["pods/quiet/main.c"], "v1", "v3", 1))
	testenv.Eventually(t, "the next swap", func() bool { return strings.Count(log.String(), "pod quiet rebuilt") == 2 })
	if n := strings.Count(log.String(), "build ok again"); n != 2 {
		t.Errorf("a build after a good one said it is ok again:\n%s", log)
	}
}
