package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/iostreams"
	"github.com/kube32/kube32/internal/testenv"
)

// typoPod is a Pod whose image no pod of the project builds.
const typoPod = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containers:\n    - name: c\n      image: wasm://embedded/hullo\n"

const typoWarning = "warning: default/typo runs image wasm://embedded/hullo, which no pod of kube32.yaml builds\n"

// newCApp scaffolds the c-http app "hello" whose manifests also run typoPod.
func newCApp(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "clang")
	dir := filepath.Join(t.TempDir(), "hello")
	if err := cli.RunNew(cli.NewOptions{IO: cli.IOStreams{Out: &strings.Builder{}}, Name: "hello", Template: "c-http", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "app.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(typoPod); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Piped, `kube32 build` prints the plain size table alone on stdout, and on
// stderr the warnings but no progress.
func TestBuildPipedPrintsPlainTableOnStdoutAndWarningsOnStderr(t *testing.T) {
	dir := newCApp(t)
	ios, _, stdout, stderr := iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 0 {
		t.Fatalf("build: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	table := regexp.MustCompile(`^KIND\tNAME\tMODULE\tINIT-MEM\tBUNDLE\tGZIP\npod\thello\t[1-9][0-9]*\t65536\t-\t-\ntotal\t\t[1-9][0-9]*\t65536\t0\t0\n$`)
	if !table.MatchString(stdout.String()) {
		t.Errorf("stdout is not the plain size table:\n%q", stdout)
	}
	if stderr.String() != typoWarning {
		t.Errorf("stderr = %q, want only the warning %q", stderr, typoWarning)
	}

	// The stale outputs removed are reported on stderr too; -v shows the
	// compiler's commands there even when piped.
	stale := filepath.Join(dir, "build", "firmware", "images", "wasm", "old.wasm")
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "build", "firmware", "images", "wasm", "hello.wasm")); err != nil {
		t.Fatal(err)
	}
	ios, _, stdout, stderr = iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build", "-v", dir}, ios); code != 0 {
		t.Fatalf("build -v: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"pod hello: (cd ", typoWarning, "removed stale build/firmware/images/wasm/old.wasm\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr of build -v lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr.String(), ": built ") {
		t.Errorf("progress on a piped stderr:\n%s", stderr)
	}
	if !table.MatchString(stdout.String()) {
		t.Errorf("stdout of build -v is not the plain size table:\n%q", stdout)
	}
}

// On a terminal, progress lines go to stderr and the table on stdout is
// aligned, with readable sizes.
func TestBuildOnTerminalShowsProgressOnStderrAndAlignedTable(t *testing.T) {
	dir := newCApp(t)
	ios, _, stdout, stderr := iostreams.Test()
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 0 {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	want := "pod hello: built build/firmware/images/wasm/hello.wasm\n" + typoWarning
	if stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	table := regexp.MustCompile(`^\nKIND +NAME +MODULE +INIT-MEM +BUNDLE +GZIP *\npod +hello +[0-9.]+ (B|KiB) +64\.0 KiB +- +- *\ntotal +[0-9.]+ (B|KiB) +64\.0 KiB +0 B +0 B *\n$`)
	if !table.MatchString(stdout.String()) {
		t.Errorf("stdout is not the aligned size table:\n%s", stdout)
	}

	// Progress follows stderr alone: a piped stdout keeps the plain table.
	ios, _, stdout, stderr = iostreams.Test()
	ios.SetStderrTTY(true)
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 0 {
		t.Fatalf("second build: exit %d\n%s", code, stderr)
	}
	if want := "pod hello: up to date\n" + typoWarning; stderr.String() != want {
		t.Errorf("second build: stderr = %q, want %q", stderr, want)
	}
	if !strings.HasPrefix(stdout.String(), "KIND\tNAME\t") {
		t.Errorf("second build: stdout is not the plain table:\n%q", stdout)
	}
}

// A failed build still prints its warnings (the typo may be the cause), then
// the error once, and exits 1.
func TestBuildFailurePrintsWarningsAndError(t *testing.T) {
	dir := newCApp(t)
	if err := os.WriteFile(filepath.Join(dir, "pods", "hello", "main.c"), []byte("int broken(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, stdout, stderr := iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 1 {
		t.Fatalf("build of a broken pod: exit %d, want 1\n%s", code, stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout of a failed build = %q, want nothing", stdout)
	}
	if !strings.HasPrefix(stderr.String(), typoWarning+"kube32: ") || !strings.Contains(stderr.String(), "pod hello") {
		t.Errorf("stderr = %q, want the warning, then the error naming pod hello", stderr)
	}
}
